// Checks: what may stop rdnafix loading and what its loading left behind.
// RDNA-CFG-004 (Secure Boot on: the module unsigned or DKMS's key not
// enrolled), RDNA-CFG-005 (lockdown without Secure Boot refuses the unsigned
// module), RDNA-CFG-006 (taint flags, explained).  docs/boot-security.md has
// the kernel sources.
#include "checks.hpp"

#include <fmt/format.h>

namespace rdnafix::status {

namespace detail {

namespace {

constexpr const char *kMokImport = "mokutil --import /var/lib/dkms/mok.pub";

// The rdnafix modules of the running and the default kernel that are not signed.
std::vector<const machine::ModuleFile *> unsigned_modules(const machine::BootConfig &b)
{
	std::vector<const machine::ModuleFile *> out;
	for (const auto &k : b.kernels)
		if (k.running || k.default_boot)
			for (const auto &m : k.rdnafix_modules)
				if (m.signature == machine::SignatureState::unsigned_module)
					out.push_back(&m);
	return out;
}

bool any_signed(const machine::BootConfig &b)
{
	for (const auto &k : b.kernels)
		if (k.running || k.default_boot)
			for (const auto &m : k.rdnafix_modules)
				if (m.signature == machine::SignatureState::signed_module)
					return true;
	return false;
}

// Taint bit -> letter and meaning (kernel/panic.c: taint_flags, Linux 6.12; J since 6.15).
struct Taint {
	char letter;
	const char *meaning;
};
constexpr Taint kTaints[] = {
	{'P', "proprietary module"},
	{'F', "module force-loaded"},
	{'S', "CPU out of specification"},
	{'R', "module force-unloaded"},
	{'M', "machine check"},
	{'B', "bad page"},
	{'U', "taint requested by user space"},
	{'D', "kernel oops or BUG"},
	{'A', "ACPI table overridden"},
	{'W', "kernel warning"},
	{'C', "staging driver"},
	{'I', "firmware workaround"},
	{'O', "out-of-tree module"},
	{'E', "unsigned module"},
	{'L', "soft lockup"},
	{'K', "live patch"},
	{'X', "auxiliary (distribution)"},
	{'T', "struct randomization"},
	{'N', "in-kernel test"},
	{'J', "fwctl firmware command"},
};

// "OE" -> "OE (O out-of-tree module, E unsigned module)"
std::string letters_text(const std::string &letters)
{
	std::string m;
	for (char l : letters)
		for (const auto &t : kTaints)
			if (t.letter == l)
				m += fmt::format("{}{} {}", m.empty() ? "" : ", ", l, t.meaning);
	return m.empty() ? letters : fmt::format("{} ({})", letters, m);
}

std::string taint_text(std::uint64_t mask, bool &serious)
{
	std::string letters, meanings;
	for (unsigned bit = 0; bit < 64; ++bit) {
		if (!(mask >> bit & 1))
			continue;
		const bool known = bit < std::size(kTaints);
		const char l = known ? kTaints[bit].letter : '?';
		letters += l;
		meanings += fmt::format("{}{} {}", meanings.empty() ? "" : ", ", l,
					known ? kTaints[bit].meaning : fmt::format("bit {}", bit));
		serious = serious || l == 'D' || l == 'W' || l == 'M' || l == 'B' || l == 'L';
	}
	return fmt::format("{} ({})", letters, meanings);
}

} // namespace

void check_security(Ctx &c)
{
	const auto &s = c.s;
	const auto &b = s.boot;
	const bool relevant = s.rdnafix.installed || s.rdnafix.loaded || rdnafix_configured(s, c.a.settings);
	auto unsigned_mods = unsigned_modules(b);

	if (relevant && b.secure_boot.value_or(false)) {
		const std::string lock = b.lockdown ? fmt::format(", lockdown={}", *b.lockdown) : "";
		for (const auto *m : unsigned_mods)
			c.add("RDNA-CFG-004", "/" + m->path,
			      fmt::format("Secure Boot is on{} and {} is not signed", lock, "/" + m->path),
			      "with Secure Boot the kernel loads only modules signed by a key it trusts "
			      "(kernel/module/signing.c: module_sig_check, Linux 6.12): modprobe rdnafix fails with "
			      "'Operation not permitted' or 'Key was rejected by service'",
			      fmt::format(
				      "let DKMS sign it (DKMS 3 signs with /var/lib/dkms/mok.key): dkms autoinstall "
				      "--force, then {}, reboot and enrol the key in MokManager",
				      kMokImport));
		if (unsigned_mods.empty() && any_signed(b) && b.mok_enrolled == false)
			c.add("RDNA-CFG-004", "/" + b.mok_key,
			      fmt::format("Secure Boot is on{} and DKMS's signing key /{} is not enrolled (not in "
					  "MokListRT)",
					  lock, b.mok_key),
			      "the module is signed with a key the firmware does not trust yet: the kernel refuses it",
			      fmt::format("{}, reboot and enrol the key in MokManager (the password chosen at import)",
					  kMokImport));
	}
	if (relevant && !b.secure_boot.value_or(false) && b.lockdown && *b.lockdown != "none")
		for (const auto *m : unsigned_mods)
			c.add("RDNA-CFG-005", "/" + m->path,
			      fmt::format("the kernel is locked down ({}) and {} is not signed", *b.lockdown,
					  "/" + m->path),
			      "lockdown refuses unsigned modules from 'integrity' on (LOCKDOWN_MODULE_SIGNATURE comes "
			      "before LOCKDOWN_INTEGRITY_MAX in include/linux/security.h, Linux 6.12); rdnafix's own "
			      "kretprobes are not refused (LOCKDOWN_KPROBES only guards tracefs kprobe events)",
			      fmt::format(
				      "sign it with DKMS's key (dkms autoinstall --force) and {} then reboot and enrol "
				      "the key, or remove lockdown= from the kernel command line",
				      kMokImport));

	if ((b.tainted && *b.tainted) || (b.rdnafix_taint && !b.rdnafix_taint->empty())) {
		bool serious = false;
		std::string kernel = b.tainted ? taint_text(*b.tainted, serious) : "unknown";
		std::string mod = b.rdnafix_taint && !b.rdnafix_taint->empty()
					  ? fmt::format("; rdnafix set {}", letters_text(*b.rdnafix_taint))
					  : "";
		c.add("RDNA-CFG-006", "kernel",
		      fmt::format("kernel taint {}{}", b.tainted ? fmt::format("{} = {}", *b.tainted, kernel) : kernel,
				  mod),
		      "O (out-of-tree) and E (unsigned) are what a DKMS-built rdnafix sets: expected and harmless; "
		      "taint only marks the kernel for bug reports",
		      serious ? "read 'dmesg' for the oops, warning or machine check that set D/W/M/B/L"
			      : "nothing needed");
	}
}

} // namespace detail

} // namespace rdnafix::status
