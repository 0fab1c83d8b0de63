"""Runs a command and checks its peak resident memory (issue 42):

    python3 peak_rss.py [--max-rss MB] [--address-space MB] [--timeout S] -- CMD...

prints "peak rss within N MB" (or "peak rss of X MB is more than N MB") after
the command's own output and exits with the command's status (1 when over
the limit). --address-space caps the command's address space (RLIMIT_AS), so
that a large allocation fails as it would on a smaller machine.
"""

import argparse
import resource
import subprocess
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-rss", type=float, default=0)
    parser.add_argument("--address-space", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command

    def limit():
        if args.address_space:
            cap = args.address_space << 20
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    proc = subprocess.run(command, preexec_fn=limit, timeout=args.timeout)
    sys.stdout.flush()
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
    status = proc.returncode
    if args.max_rss:
        if peak_mb <= args.max_rss:
            print("peak rss within %d MB" % args.max_rss)
        else:
            print("peak rss of %.0f MB is more than %d MB" % (peak_mb, args.max_rss))
            status = status or 1
    sys.exit(status)


if __name__ == "__main__":
    main()
