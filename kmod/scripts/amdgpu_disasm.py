#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""x86-64 call-site analysis of `objdump -dr -w --no-show-raw-insn` text.

Used by amdgpu_audit.py.  It answers two questions about an amdgpu.ko:

* which functions reference a symbol (a relocation against it in an
  executable section): the readers of amdgpu_noretry / amdgpu_vm_fragment_size;
* for every indirect call whose target was loaded as
  adev->gmc.gmc_funcs->get_vm_pte (two loads at BTF-derived displacements),
  what reaches the flags argument register on every path into the call.

The analysis is a backward search over one function's instructions: the
predecessors of an instruction are the previous one (unless that one is an
unconditional jmp, a ret or a ud2) and every jump in the same function whose
target is its address.  A register's reaching definitions are the nearest
instructions on each path that write it (a call clobbers the caller-saved
registers); a 64-bit register-to-register mov is followed to its source.
Only `lea DISP(%rsp)` (or `lea DISP(%rbp)` in a function that set up %rbp as
its frame pointer) is a stack local.  Anything the search cannot follow is a
failure, never a guess.
"""
import re

ARG_REGS = ("rdi", "rsi", "rdx", "rcx", "r8", "r9")
CALLER_SAVED = {"rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11"}
_LEGACY = {
    "rax": ("rax", "eax", "ax", "al", "ah"), "rbx": ("rbx", "ebx", "bx", "bl", "bh"),
    "rcx": ("rcx", "ecx", "cx", "cl", "ch"), "rdx": ("rdx", "edx", "dx", "dl", "dh"),
    "rsi": ("rsi", "esi", "si", "sil"), "rdi": ("rdi", "edi", "di", "dil"),
    "rbp": ("rbp", "ebp", "bp", "bpl"), "rsp": ("rsp", "esp", "sp", "spl"),
}
ALIAS = {}
for _full, _names in _LEGACY.items():
    for _n in _names:
        ALIAS[_n] = _full
for _i in range(8, 16):
    for _sfx in ("", "d", "w", "b"):
        ALIAS[f"r{_i}{_sfx}"] = f"r{_i}"

# instructions that read but never write their last operand
NO_WRITE = re.compile(r"^(cmp|test|bt|push|call|jmp|j[a-z]+|nop|prefetch|ret|ud2|int3|endbr64|lfence|"
                      r"mfence|sfence|pause|clflush|ucomis|comis|ptest)")
# instructions that write registers not named as their last operand: the registers
_IMPLICIT = (
    (r"mul|div|idiv|rdtsc|rdmsr|rdpmc|xgetbv", ("rax", "rdx")), (r"cqto|cltd|cwtd", ("rdx",)),
    (r"cltq|cwtl|cbtw", ("rax",)), (r"cpuid", ("rax", "rbx", "rcx", "rdx")), (r"syscall", ("rax", "rcx", "r11")),
    (r"cmpxchg\w*", ("rax", "rdx")), (r"leave|enter", ("rbp",)), (r"lret|iret\w*|sysret\w*", tuple(_LEGACY)),
    (r"rep\w*|movs[bwlq]?|stos[bwlq]?|lods[bwlq]?|scas[bwlq]?|cmps[bwlq]?", ("rax", "rcx", "rsi", "rdi")),
)
IMPLICIT = [(re.compile(f"^(?:{pat})$"), regs) for pat, regs in _IMPLICIT]
INSN = re.compile(r"^\s*([0-9a-f]+):\t(.*)$")
FUNC = re.compile(r"^[0-9a-f]+ <(.+)>:$")
THUNK = re.compile(r"R_X86_64_(?:PLT32|PC32)\t__x86_indirect_(?:its_|call_)?thunk_(r[a-z0-9]+)-0x4$")
DIRECT = re.compile(r"^([0-9a-f]+) <")
MEM = re.compile(r"^(-?0x[0-9a-f]+|)\((%r[a-z0-9]+)\)$")
PREFIXES = ("cs", "ds", "es", "ss", "fs", "gs", "notrack", "bnd", "lock", "data16", "addr32")


class Insn:
    __slots__ = ("addr", "mnem", "ops", "reloc", "text")

    def __init__(self, addr, body):
        self.addr = addr
        text, _tab, reloc = body.partition("\t")
        self.reloc = reloc.strip() or None
        text = text.split("#")[0].strip()
        self.text = text
        words = text.split(None, 1)
        while len(words) > 1 and words[0] in PREFIXES:
            words = words[1].split(None, 1)
        self.mnem = words[0] if words else ""
        self.ops = split_ops(words[1]) if len(words) > 1 else []


def split_ops(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def reg_of(op):
    """'%edx' -> 'rdx'; None for anything that is not a general register."""
    if op.startswith("%"):
        return ALIAS.get(op[1:])
    return None


def functions(text, wanted=None):
    """{name: (section, [Insn])} per function; only those where wanted(lines) is true when given."""
    out, name, lines, sect = {}, None, [], ""

    def flush():
        if name is not None and (wanted is None or wanted(lines)):
            ins = []
            for ln in lines:
                m = INSN.match(ln)
                if m:
                    ins.append(Insn(int(m.group(1), 16), m.group(2)))
            if ins:
                out[name] = (sect, ins)
    for ln in text.splitlines():
        m = FUNC.match(ln)
        if m:
            flush()
            name, lines = m.group(1), []
        elif ln.startswith("Disassembly of section "):
            flush()
            name, lines, sect = None, [], ln[len("Disassembly of section "):].rstrip(":")
        elif name is not None and ln:
            lines.append(ln)
    flush()
    return out


# sections whose relocations into code are bookkeeping, not control flow
META = re.compile(r"^(\.orc_unwind_ip|\.call_sites|\.retpoline_sites|\.return_sites|\.ibt_endbr_seal|"
                  r"\.smp_locks|__bug_table|__mcount_loc|__patchable_function_entries|\.static_call_sites|"
                  r"\.altinstructions|\.discard|\.BTF|\.debug|\.kcfi_traps|\.gnu\.linkonce|__dyndbg|"
                  r"__tracepoints|_ftrace_events|__bpf_raw_tp_map|__param|\.parainstructions)")
RELOC = re.compile(r"^[0-9a-f]+ +R_X86_64_\w+ +(\.[\w.]*text[\w.]*)([-+]0x[0-9a-f]+)?$")


def code_entries(reloc_text):
    """{section: {offset}}: code addresses some other place may transfer control to.

    From `objdump -r`: every relocation against a code section (+addend, and
    +addend+4 for a PC-relative jump) found in a section that is not
    bookkeeping (jump tables in .rodata, __jump_table, __ex_table, the cold
    parts of functions, .altinstr_replacement).  Over-approximate on purpose:
    an extra entry only makes the audit stricter.
    """
    out, skip = {}, True
    for ln in reloc_text.splitlines():
        if ln.startswith("RELOCATION RECORDS FOR ["):
            skip = bool(META.match(ln[len("RELOCATION RECORDS FOR ["):].rstrip("]:")))
            continue
        if skip:
            continue
        m = RELOC.match(ln)
        if m:
            a = int(m.group(2) or "0", 16)
            out.setdefault(m.group(1), set()).update((a, a + 4))
    return out


def symbol_readers(text, symbols):
    """{symbol: [function, ...]} for every executable relocation against a symbol."""
    pat = re.compile(r"R_X86_64_\w+\t(" + "|".join(map(re.escape, symbols)) + r")(?:[-+]0x[0-9a-f]+)?$")
    found = {s: [] for s in symbols}
    name = None
    for ln in text.splitlines():
        m = FUNC.match(ln)
        if m:
            name = m.group(1)
            continue
        m = pat.search(ln)
        if m and name and name not in found[m.group(1)]:
            found[m.group(1)].append(name)
    return found


class Flow:
    """Backward reaching-definition search inside one function."""

    def __init__(self, ins, entries=frozenset()):
        self.ins = ins
        self.entries = entries
        self.index = {x.addr: i for i, x in enumerate(ins)}
        self.jumps_to = {}
        for i, x in enumerate(ins):
            if x.mnem.startswith("j") and x.ops and not x.reloc:
                m = DIRECT.match(x.ops[0])
                if m:
                    self.jumps_to.setdefault(int(m.group(1), 16), []).append(i)
        # %rbp is a frame pointer: set from %rsp in the prologue, written elsewhere only
        # by the epilogue's pop/leave right before a return
        self.frame_pointer = any(x.mnem == "mov" and x.ops == ["%rsp", "%rbp"] for x in ins[:8]) and \
            sum(1 for i, x in enumerate(ins) if writes(x, "rbp") and not (
                x.mnem in ("pop", "leave") and i + 1 < len(ins) and ends_flow(ins[i + 1]))) == 1

    def preds(self, j):
        out = list(self.jumps_to.get(self.ins[j].addr, []))
        if self.ins[j].addr in self.entries:
            out.append(-1)  # entered from elsewhere: unknown state
        if j > 0 and not ends_flow(self.ins[j - 1]):
            out.append(j - 1)
        return out

    def defs(self, j, reg, limit=512):
        """[(index or None, reg)] of the writes of reg reaching instruction j.

        None: the value comes from the function's entry, from a jump into the
        function from elsewhere, or the search gave up (more than limit paths).
        """
        out, seen, work = [], set(), [(j, reg)]
        while work:
            if len(out) >= limit:
                return out + [(None, reg)]
            k, r = work.pop()
            if (k, r) in seen:
                continue
            seen.add((k, r))
            ps = self.preds(k)
            if not ps:
                out.append((None, r))
            for p in ps:
                if p < 0:
                    out.append((None, r))
                elif writes(self.ins[p], r):
                    out.append((p, r))
                else:
                    work.append((p, r))
        return out

    def where(self, fname, i):
        return f"{fname}+{hex(self.ins[i].addr - self.ins[0].addr)}"


def ends_flow(x):
    if x.mnem in ("ret", "ud2", "jmp", "int3") or x.mnem.startswith("ret"):
        return True
    return x.mnem == "call" and x.reloc is not None and "__x86_return_thunk" in x.reloc


def writes(x, reg):
    if x.mnem == "call" or (x.mnem == "jmp" and x.reloc):
        return reg in CALLER_SAVED
    for pat, regs in IMPLICIT:
        if pat.match(x.mnem):
            return reg in regs or (bool(x.ops) and reg_of(x.ops[-1]) == reg)
    if x.mnem in ("xchg", "xadd") or (x.mnem == "imul" and len(x.ops) == 1):
        return any(reg_of(o) == reg for o in x.ops) or (x.mnem == "imul" and reg in ("rax", "rdx"))
    if x.mnem == "pop":
        return bool(x.ops) and reg_of(x.ops[0]) == reg
    if NO_WRITE.match(x.mnem) or not x.ops:
        return False
    return reg_of(x.ops[-1]) == reg


def load(x):
    """(disp, base reg, dest reg) of `mov DISP(%base),%dest` (64-bit), else None."""
    if x.mnem not in ("mov", "movq") or len(x.ops) != 2 or not x.ops[1].startswith("%r"):
        return None
    m = MEM.match(x.ops[0])
    if not m or reg_of(x.ops[1]) is None:
        return None
    return int(m.group(1) or "0", 16), reg_of(m.group(2)), reg_of(x.ops[1])


def indirect_target(x):
    """(how, reg, disp) of an indirect call/tail call, else None: disp is set for `call *DISP(%reg)`."""
    if x.mnem not in ("call", "jmp") or not x.ops:
        return None
    if x.reloc:
        m = THUNK.search(x.reloc)
        return (x.mnem + " thunk", m.group(1), None) if m else None
    op = x.ops[0]
    if op.startswith("*%"):
        return (x.mnem + " *reg", reg_of(op[1:]), None)
    if op.startswith("*"):
        m = MEM.match(op[1:])
        if m:
            return (x.mnem + " *mem", reg_of(m.group(2)), int(m.group(1) or "0", 16))
    return None


def stack_local(flow, i, reg, depth=0):
    """(ok, why) for the value of reg at instruction i on every path."""
    whys = []
    for p, r in flow.defs(i, reg):
        if p is None:
            return False, f"%{r} comes from the caller or a jump from elsewhere on some path"
        x = flow.ins[p]
        if x.mnem == "lea" and len(x.ops) == 2 and reg_of(x.ops[1]) == r and x.ops[1] == "%" + r:
            m = MEM.match(x.ops[0])
            if m and (m.group(2) == "%rsp" or (m.group(2) == "%rbp" and flow.frame_pointer)):
                whys.append(f"lea {x.ops[0]}")
                continue
        if x.mnem == "mov" and len(x.ops) == 2 and x.ops[0].startswith("%r") and x.ops[1] == "%" + r \
                and reg_of(x.ops[0]) and depth < 4:
            ok, why = stack_local(flow, p, reg_of(x.ops[0]), depth + 1)
            if not ok:
                return False, why
            whys.append(why)
            continue
        return False, f"%{r} set by `{' '.join(x.text.split())}` at +{hex(x.addr - flow.ins[0].addr)}"
    if not whys:
        return False, f"no definition of %{reg} found"
    return True, " | ".join(sorted(set(whys)))


def get_vm_pte_calls(funcs, entries, funcs_disps, pte_disp, flags_reg):
    """Call sites through gmc_funcs->get_vm_pte and loads of that pointer that reach no call.

    funcs_disps: displacements at which a gmc_funcs pointer is loaded (from
    adev, or from &adev->gmc); pte_disp: of get_vm_pte in amdgpu_gmc_funcs.
    entries: code_entries() of the module.  Returns (sites, stray): sites =
    [(where, how, flags reg, ok, why)], stray = [where] of get_vm_pte pointer
    loads that feed no recognised call.  A call whose target is get_vm_pte on
    some paths only is a site that is not ok.
    """
    sites, stray = [], []
    for fname, (sect, ins) in funcs.items():
        flow = Flow(ins, entries.get(sect, frozenset()))
        used = set()
        for i, x in enumerate(ins):
            t = indirect_target(x)
            if not t or t[1] is None:
                continue
            how, reg, disp = t
            if disp is not None:  # call *DISP(%reg)
                if disp != pte_disp:
                    continue
                how += f" *{hex(disp)}(%{reg})"
                match = [chain(flow, i, reg, funcs_disps)]
            else:
                how += f" %{reg}"
                match = []
                for p, _r in flow.defs(i, reg):
                    ld = load(ins[p]) if p is not None else None
                    match.append(chain(flow, p, ld[1], funcs_disps) if ld and ld[0] == pte_disp else False)
                    if match[-1] is not False:
                        used.add(p)
            if all(m is False for m in match):
                continue
            where = flow.where(fname, i)
            if not all(m is True for m in match):
                sites.append((where, how, "%" + flags_reg, False, "target is get_vm_pte on some paths only"))
            elif x.mnem == "jmp":
                sites.append((where, how, "%" + flags_reg, False, "tail call: flags is the caller's argument"))
            else:
                ok, why = stack_local(flow, i, flags_reg)
                sites.append((where, how, "%" + flags_reg, ok, why))
        for i, x in enumerate(ins):
            ld = load(x)
            if ld and ld[0] == pte_disp and i not in used and chain(flow, i, ld[1], funcs_disps) is not False:
                stray.append(flow.where(fname, i))
    return sites, stray


def chain(flow, i, reg, funcs_disps):
    """True/None/False: reg at i holds a gmc_funcs pointer (loaded at one of funcs_disps) on all/some/no paths."""
    hits = []
    for p, _r in flow.defs(i, reg):
        ld = load(flow.ins[p]) if p is not None else None
        hits.append(bool(ld and ld[0] in funcs_disps))
    if hits and all(hits):
        return True
    return None if any(hits) else False
