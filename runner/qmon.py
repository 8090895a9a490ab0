#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""qmon.py SOCKET CMD...: send each CMD to a QEMU human monitor on the
unix SOCKET and print what it answers; what uml_mconsole is to UML.
Every wait is bounded: connect, send and read give up after TIMEOUT s."""

import socket
import sys
import time

TIMEOUT = 5.0


def drain(s, quiet_s):
	"""What the monitor says until it has been quiet for quiet_s."""
	out = b''
	s.settimeout(quiet_s)
	end = time.monotonic() + TIMEOUT
	while time.monotonic() < end:
		try:
			chunk = s.recv(4096)
		except socket.timeout:
			break
		if not chunk:
			break
		out += chunk
	return out.decode('utf-8', 'replace')


def main():
	if len(sys.argv) < 3:
		print('usage: qmon.py SOCKET CMD...', file=sys.stderr)
		return 2
	s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
	s.settimeout(TIMEOUT)
	try:
		s.connect(sys.argv[1])
		drain(s, 0.3)		# the banner and first prompt
		for cmd in sys.argv[2:]:
			s.sendall(cmd.encode() + b'\n')
			for line in drain(s, 0.5).splitlines():
				line = line.strip()
				# The monitor echoes the command as it edits a
				# line (terminal escapes), then prompts again.
				if line and '\x1b[' not in line and \
				   not line.startswith('(qemu)') and \
				   not line.startswith('QEMU ') and line != cmd:
					print(line)
	except OSError as e:
		print('qmon: %s: %s' % (sys.argv[1], e), file=sys.stderr)
		return 1
	finally:
		s.close()
	return 0


if __name__ == '__main__':
	sys.exit(main())
