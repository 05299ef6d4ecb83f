#!/usr/bin/python3
"""Update a machine tree (the --root layout of tests/fixtures/README.md) as a reboot would after
`rdnactl fix` or `rdnactl config set` wrote its boot configuration.

    simulate-reboot.py ROOT [--keep-kernel-log]

What a reboot changes, and only that:
  1. proc/cmdline: the boot loader's next command line. systemd-boot with kernel-install writes the
     boot entry's options from etc/kernel/cmdline, so proc/cmdline becomes that file's text. A GRUB
     drop-in (etc/default/grub.d/*rdnafix*) is not simulated: the script exits 2 and says so.
  2. sys/module/<module>/parameters/<name>, for each module directory present: modprobe reads the
     `options` lines of etc/modprobe.d/*.conf in file-name order, then appends the command line's
     <module>.<name>=<value> words, and the kernel keeps the last value of a parameter. A
     parameter no longer set anywhere returns to the kernel default for the few parameters whose
     default is known here (DEFAULTS); any other parameter keeps its file.
  3. mem_info_gtt_total of each amdgpu PCI device: amdgpu.gttsize MiB when it is not -1, else
     ttm.pages_limit (or amdttm.pages_limit) x 4096 (amdgpu_ttm.c: amdgpu_ttm_init, Linux 6.12; the
     rule tests/fixtures/check_fixtures.py checks).
  4. var/log/rdnafix-dmesg (the captured kernel log of the boot) is removed: a new boot has a new
     log. --keep-kernel-log keeps it, as if the same messages came again after the reboot (a check
     that reads the log then has to be satisfied by the new configuration alone).

Exit codes: 0 done, 1 the tree is not a machine tree, 2 a boot configuration this script does not
simulate.
"""
import glob
import os
import re
import sys

PAGE = 4096


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def ram_pages(root):
    m = re.search(r"^MemTotal:\s+(\d+) kB", read(os.path.join(root, "proc/meminfo")), re.M)
    return int(m.group(1)) * 1024 // PAGE if m else None


def defaults(root):
    """Kernel defaults of the parameters rdnactl's remedies set or remove (Linux 6.12)."""
    d = {("amdgpu", "noretry"): "-1", ("amdgpu", "vm_fragment_size"): "-1",
         ("amdgpu", "gttsize"): "-1", ("amdgpu", "mtype_local"): "0"}
    pages = ram_pages(root)
    if pages:
        # ttm_tt_mgr_init and ttm_pool_mgr_init: half of RAM, in pages (ttm_tt.c, ttm_pool.c).
        for m in ("ttm", "amdttm"):
            d[(m, "pages_limit")] = str(pages // 2)
            d[(m, "page_pool_size")] = str(pages // 2)
    return d


def modprobe_options(root):
    """(module, name) -> value from etc/modprobe.d/*.conf, last line wins, files in name order."""
    out = {}
    for path in sorted(glob.glob(os.path.join(root, "etc/modprobe.d/*.conf")), key=os.path.basename):
        text = re.sub(r"\\\n", " ", read(path))
        for line in text.splitlines():
            words = line.split("#", 1)[0].split()
            if len(words) >= 2 and words[0] == "options":
                for w in words[2:]:
                    if "=" in w:
                        k, v = w.split("=", 1)
                        out[(words[1], k.replace("-", "_"))] = v
    return out


def next_cmdline(root):
    if glob.glob(os.path.join(root, "etc/default/grub.d/*rdnafix*")):
        sys.exit("simulate-reboot: a GRUB drop-in is not simulated (only etc/kernel/cmdline)")
    f = os.path.join(root, "etc/kernel/cmdline")
    return read(f).strip() if os.path.exists(f) else None


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    root = argv[1]
    if not os.path.isfile(os.path.join(root, "proc/cmdline")):
        print(f"simulate-reboot: {root} has no proc/cmdline: not a machine tree", file=sys.stderr)
        return 1
    try:
        cmdline = next_cmdline(root)
    except SystemExit as e:
        print(e, file=sys.stderr)
        return 2
    if cmdline is not None:
        write(os.path.join(root, "proc/cmdline"), cmdline + "\n")
    cmdline = read(os.path.join(root, "proc/cmdline")).split()

    values = dict(defaults(root))
    values.update(modprobe_options(root))
    for w in cmdline:
        m = re.fullmatch(r"([A-Za-z0-9_]+)\.([A-Za-z0-9_-]+)=(.*)", w)
        if m:
            values[(m.group(1), m.group(2).replace("-", "_"))] = m.group(3)
    for (module, name), value in values.items():
        f = os.path.join(root, "sys/module", module, "parameters", name)
        if os.path.exists(f):
            write(f, value + "\n")

    def param(module, name):
        f = os.path.join(root, "sys/module", module, "parameters", name)
        return int(read(f)) if os.path.exists(f) else None

    gttsize = param("amdgpu", "gttsize")
    pages = param("amdttm", "pages_limit") or param("ttm", "pages_limit")
    gtt = (gttsize << 20) if gttsize not in (None, -1) else (pages * PAGE if pages else None)
    drv = os.path.join(root, "sys/bus/pci/drivers/amdgpu")
    for dev in glob.glob(os.path.join(root, "sys/bus/pci/devices/*")):
        f = os.path.join(dev, "mem_info_gtt_total")
        is_amdgpu = os.path.realpath(os.path.join(dev, "driver")) == os.path.realpath(drv)
        if gtt is not None and is_amdgpu and os.path.exists(f):
            write(f, f"{gtt}\n")

    log = os.path.join(root, "var/log/rdnafix-dmesg")
    if "--keep-kernel-log" not in argv and os.path.exists(log):
        os.remove(log)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
