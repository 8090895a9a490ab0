#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The host's XSAVE area size, as UML meets it, and what a UML kernel holds.

UML keeps each task's FP registers in a buffer it hands to the host's
PTRACE_GETREGSET/PTRACE_SETREGSET(NT_X86_XSTATE); the host's SETREGSET
accepts nothing smaller than its whole XSAVE area (arch/x86/kernel/fpu/
regset.c, xstateregs_set()), whose size depends on the CPU: 2696 bytes with
AVX-512, 11008 with AMX. This asks the host the way UML does (a traced
child, GETREGSET with a generous buffer) and compares the answer with a
kernel's capacity:

  xsave.py host                 print the host's size in bytes
  xsave.py kernel BUILD|BINARY  print the kernel's capacity: "dynamic" when
                                it learns the size at boot, else bytes
  xsave.py check BUILD|BINARY   exit 0 if the kernel can hold the host's
                                area, else 1 with the one-line reason
"""

import ctypes
import os
import re
import signal
import sys

PTRACE_TRACEME = 0
PTRACE_KILL = 8
PTRACE_GETREGSET = 0x4204
NT_X86_XSTATE = 0x202
PROBE_BYTES = 2 << 20
# 6.12 and before: arch/x86/um/user-offsets.c, DEFINE_LONGS(HOST_FP_SIZE, 2696)
STATIC_FP_BYTES = 2696
# What a kernel that learns the size at boot prints (kernel-patches/0001).
DYNAMIC_MARK = b'Host XSAVE area: %zu bytes'


class Iovec(ctypes.Structure):
	_fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]


def host_size():
	"""GETREGSET(NT_X86_XSTATE) on a stopped child: the bytes the host
	fills, which are the bytes SETREGSET will demand. None if the host has
	no XSAVE regset (UML then falls back to the 512-byte FXSAVE)."""
	libc = ctypes.CDLL(None, use_errno=True)
	libc.ptrace.restype = ctypes.c_long
	libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p,
				ctypes.c_void_p]
	pid = os.fork()
	if pid == 0:
		try:
			libc.ptrace(PTRACE_TRACEME, 0, None, None)
			os.kill(os.getpid(), signal.SIGSTOP)
		finally:
			os._exit(0)
	try:
		_, status = os.waitpid(pid, os.WUNTRACED)
		if not os.WIFSTOPPED(status):
			raise SystemExit('xsave: the probe child did not stop')
		buf = ctypes.create_string_buffer(PROBE_BYTES)
		iov = Iovec(ctypes.cast(buf, ctypes.c_void_p), PROBE_BYTES)
		if libc.ptrace(PTRACE_GETREGSET, pid, NT_X86_XSTATE,
			       ctypes.byref(iov)) != 0:
			return None
		return iov.len
	finally:
		os.kill(pid, signal.SIGKILL)
		os.waitpid(pid, 0)


def kernel_capacity(path):
	"""'dynamic', or the bytes of FP state the kernel can hold: from a
	build dir's generated constants, or a binary's strings."""
	binary = path
	if os.path.isdir(path):
		binary = os.path.join(path, 'linux')
	# A build dir (ours are O= dirs) says what its HOST_FP_SIZE was.
	consts = os.path.join(os.path.dirname(binary),
			      'include/generated/user_constants.h')
	try:
		m = re.search(r'#define HOST_FP_SIZE (\d+)', open(consts).read())
	except OSError:
		m = None
	static = int(m.group(1)) * 8 if m else STATIC_FP_BYTES
	try:
		with open(binary, 'rb') as f:
			if DYNAMIC_MARK in f.read():
				return 'dynamic'
	except OSError as e:
		raise SystemExit('xsave: cannot read %s: %s' % (binary, e.strerror))
	return static


def check(path):
	"""None if the kernel can run user processes on this host, else why."""
	size = host_size()
	cap = kernel_capacity(path)
	if size is None or cap == 'dynamic' or size <= cap:
		return None
	return ('this host\'s XSAVE area is %d bytes but the UML kernel holds %d '
		'(ptrace SETREGSET fails with EFAULT)' % (size, cap))


def main(argv):
	if len(argv) == 2 and argv[1] == 'host':
		size = host_size()
		print(size if size is not None else 'none')
		return 0
	if len(argv) == 3 and argv[1] == 'kernel':
		print(kernel_capacity(argv[2]))
		return 0
	if len(argv) == 3 and argv[1] == 'check':
		why = check(argv[2])
		if why:
			print(why)
			return 1
		return 0
	sys.stderr.write(__doc__)
	return 2


if __name__ == '__main__':
	sys.exit(main(sys.argv))
