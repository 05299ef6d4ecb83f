// Managed keys, the words of `config set/unset`, and value validation (see
// keys.hpp).  rdnafix values go through kmod/rdnafix_policy.h, the module's
// own parser.
#include "config/keys.hpp"

#include "config/service_dropin.hpp"

#include "rdnafix_policy.h"

#include <algorithm>
#include <charconv>
#include <set>

#include <fmt/format.h>

namespace rdnafix::config {

namespace {

constexpr std::string_view kAmdgpuNoretry = "-1 (the kernel's default for the GPU), 0 (retry faults on) or 1 (off)";
constexpr std::string_view kAmdgpuFragment = "-1 (amdgpu's default) or 4..9 (amdgpu_device_check_arguments() "
					     "resets anything else to -1)";
constexpr std::string_view kAmdgpuLockup =
	"1 to 4 comma-separated timeouts in ms (at most 2147483647), no spaces: one for all rings or "
	"GFX,Compute,SDMA,Video; 0 keeps the default, a negative value means no timeout";
constexpr std::string_view kAmdgpuGtt = "-1 (automatic) or a size in MiB, 32 or more";
constexpr std::string_view kTtmPages = "a number of 4096-byte pages, at least 262144 (1 GiB) and within the RAM "
				       "ceiling (set it with ttm-limit=SIZE)";

constexpr KeySpec kKeys[] = {
	{"rdnafix", "noretry", RDNAFIX_VALID_NORETRY},
	{"rdnafix", "vm_fragment_size", RDNAFIX_VALID_FRAGMENT},
	{"rdnafix", "mtype_sysmem", RDNAFIX_VALID_MTYPE},
	{"rdnafix", "mtype_vram", RDNAFIX_VALID_MTYPE},
	{"rdnafix", "targets", RDNAFIX_VALID_TARGETS},
	{"rdnafix", "exclude", RDNAFIX_VALID_EXCLUDE},
	{"rdnafix", "dry_run", RDNAFIX_VALID_BOOL},
	{"rdnafix", "strict", RDNAFIX_VALID_BOOL},
	{"amdgpu", "noretry", kAmdgpuNoretry},
	{"amdgpu", "vm_fragment_size", kAmdgpuFragment},
	{"amdgpu", "lockup_timeout", kAmdgpuLockup},
	{"amdgpu", "gttsize", kAmdgpuGtt},
	{"ttm", "pages_limit", kTtmPages},
	{"ttm", "page_pool_size", kTtmPages},
	{"amdttm", "pages_limit", kTtmPages},
	{"amdttm", "page_pool_size", kTtmPages},
};

constexpr std::string_view kCmdlineModules[] = {"amdgpu", "rdnafix", "ttm", "amdttm"};

std::string normalize(std::string_view name)
{
	std::string out(name);
	std::replace(out.begin(), out.end(), '-', '_');
	return out;
}

bool plain_value(std::string_view v)
{
	return std::all_of(v.begin(), v.end(), [](char c) {
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
		       c == '.' || c == ',' || c == ':' || c == '+' || c == '-';
	});
}

// Strict decimal: optional '-', no leading zeros, no '+', no spaces.
std::optional<long long> strict_int(std::string_view v)
{
	std::string_view digits = v.substr(!v.empty() && v[0] == '-' ? 1 : 0);
	if (digits.empty() || digits.size() > 18 || (digits[0] == '0' && digits.size() > 1))
		return std::nullopt;
	long long out = 0;
	auto r = std::from_chars(v.data(), v.data() + v.size(), out);
	if (r.ec != std::errc() || r.ptr != v.data() + v.size() || v == "-0")
		return std::nullopt;
	return out;
}

std::string invalid(std::string_view module, std::string_view name, std::string_view value, std::string_view valid,
		    std::string_view where = {})
{
	return fmt::format("invalid value '{}' for {}.{}{}: valid values are {}", value, module, name, where, valid);
}

std::optional<std::string> check_rdnafix(std::string_view name, const std::string &value, std::string_view valid)
{
	const char *s = value.c_str();
	int i = 0;
	bool b = false;
	int rc = 0;
	unsigned int bad = 0;
	struct rdnafix_sel_list list {};
	if (name == "noretry")
		rc = rdnafix_parse_noretry(s, &i);
	else if (name == "vm_fragment_size")
		rc = rdnafix_parse_fragment(s, &i);
	else if (name == "mtype_sysmem" || name == "mtype_vram")
		rc = rdnafix_parse_mtype(s, &i);
	else if (name == "dry_run" || name == "strict")
		rc = rdnafix_parse_bool01(s, &b);
	else
		rc = rdnafix_parse_sel_list(s, name == "exclude", &list, &bad);
	// The policy treats one trailing newline as sysfs input; a file value has none.
	if (rc == 0 && value.find_first_of(" \t\n") == std::string::npos)
		return std::nullopt;
	std::string where;
	if (rc != 0 && (name == "targets" || name == "exclude") && value.find(',') != std::string::npos &&
	    bad < value.size()) {
		std::size_t end = value.find(',', bad);
		where = fmt::format(" (at '{}')", value.substr(bad, end == std::string::npos ? end : end - bad));
	}
	return invalid("rdnafix", name, value, valid, where);
}

// amdgpu converts each positive lockup_timeout with msecs_to_jiffies(), whose
// argument is an unsigned int (amdgpu_device_get_job_timeout_settings()).
constexpr long long kLockupMaxMs = 2147483647; // INT_MAX: about 24.8 days

std::string lockup_too_long(const std::string &value, long long ms)
{
	const auto wrapped = static_cast<unsigned long long>(ms) & 0xffffffffull;
	std::string kernel;
	if (wrapped == 0)
		kernel = "wraps to 0 ms: every GPU job would time out at once and the GPU be reset over and over";
	else if (wrapped > static_cast<unsigned long long>(kLockupMaxMs))
		kernel = "is taken as 'never' (MAX_JIFFY_OFFSET): the timeout is silently off";
	else
		kernel = fmt::format("wraps to {} ms", wrapped);
	return fmt::format("invalid value '{}' for amdgpu.lockup_timeout: {} ms is more than {} ms (about 24.8 days); "
			   "amdgpu converts the timeout with msecs_to_jiffies(unsigned int), so {} {}. Use at most "
			   "{}, or a negative value (-1) for no timeout",
			   value, ms, kLockupMaxMs, ms, kernel, kLockupMaxMs);
}

std::optional<std::string> check_amdgpu(std::string_view name, const std::string &value, std::string_view valid,
					std::vector<std::string> *warnings)
{
	if (name == "lockup_timeout") {
		bool ok = !value.empty() && value.size() <= 255;
		int fields = 0;
		std::size_t pos = 0;
		while (ok && pos <= value.size()) {
			std::size_t e = value.find(',', pos);
			if (e == std::string::npos)
				e = value.size();
			const auto ms = strict_int(std::string_view(value).substr(pos, e - pos));
			ok = ms.has_value() && ++fields <= 4;
			if (ok && *ms > kLockupMaxMs)
				return lockup_too_long(value, *ms);
			pos = e + 1;
		}
		return ok ? std::nullopt : std::optional(invalid("amdgpu", name, value, valid));
	}
	auto v = strict_int(value);
	bool ok = v.has_value();
	if (ok && name == "noretry")
		ok = *v >= -1 && *v <= 1;
	else if (ok && name == "vm_fragment_size")
		ok = *v == -1 || (*v >= 4 && *v <= 9);
	else if (ok && name == "gttsize")
		ok = *v == -1 || (*v >= 32 && *v <= 0x7fffffff);
	if (!ok)
		return invalid("amdgpu", name, value, valid);
	if (name == "gttsize")
		warnings->push_back(
			"amdgpu.gttsize is deprecated: amdgpu logs 'Configuring gttsize via module parameter is "
			"deprecated, please use ttm.pages_limit' (drivers/gpu/drm/amd/amdgpu/amdgpu_ttm.c: "
			"amdgpu_ttm_init), and the TTM page limit caps GTT anyway; use 'rdnactl config set "
			"ttm-limit=SIZE' instead");
	return std::nullopt;
}

std::optional<std::string> check_ttm(std::string_view module, std::string_view name, const std::string &value,
				     const machine::Snapshot &s)
{
	auto v = strict_int(value);
	if (!v || *v <= 0)
		return invalid(module, name, value, kTtmPages);
	const std::uint64_t bytes = std::uint64_t(*v) * kTtmPageBytes;
	if (!s.driver.mem_total_bytes)
		return fmt::format("cannot check {}.{}={} ({}) against the RAM: proc/meminfo (MemTotal) is not "
				   "readable{}",
				   module, name, value, gib(bytes),
				   s.root == "/" || s.root.empty() ? "" : fmt::format(" below {}", s.root));
	if (bytes < kTtmMinBytes)
		return fmt::format("{}.{}={} ({} bytes) is less than the {} pages (1 GiB) rdnactl accepts: TTM "
				   "refuses every system-memory allocation above the limit (ENOMEM), so amdgpu could "
				   "not allocate its rings, firmware and display buffers and the GPU would not come up",
				   module, name, value, bytes, kTtmMinBytes / kTtmPageBytes);
	const std::uint64_t ram = *s.driver.mem_total_bytes;
	const std::uint64_t ceiling = ttm_ceiling_bytes(ram);
	if (bytes > ceiling)
		return fmt::format("{}.{}={} ({}) is more than this machine allows: at most {} pages ({}), which "
				   "leaves max(1/8 of RAM, 1 GiB) of the {} RAM to the kernel and every other "
				   "program (pages the GPU holds through TTM cannot be swapped out)",
				   module, name, value, gib(bytes), ceiling / kTtmPageBytes, gib(ceiling), gib(ram));
	return std::nullopt;
}

std::string key_list()
{
	return "noretry, vm_fragment_size, mtype_sysmem, mtype_vram, targets, exclude, dry_run, strict (rdnafix, "
	       "also as rdnafix.KEY), amdgpu.noretry, amdgpu.vm_fragment_size, amdgpu.lockup_timeout, "
	       "amdgpu.gttsize, ttm-limit (or ttm.pages_limit, ttm.page_pool_size, amdttm.*), validate.user";
}

// "noretry" -> rdnafix/noretry, "amdgpu.noretry" -> amdgpu/noretry.
std::optional<std::pair<std::string, std::string>> split_key(std::string_view key)
{
	std::size_t dot = key.find('.');
	std::string module = dot == std::string_view::npos ? "rdnafix" : normalize(key.substr(0, dot));
	std::string name = normalize(dot == std::string_view::npos ? key : key.substr(dot + 1));
	if (!find_key(module, name))
		return std::nullopt;
	return std::pair{module, name};
}

void add_unique(Parsed &p, std::set<std::string> &seen, ModuleChange c, std::string_view word)
{
	if (!seen.insert(c.module + "." + c.name).second) {
		p.errors.push_back(fmt::format("'{}': {}.{} is given twice", word, c.module, c.name));
		return;
	}
	p.modules.push_back(std::move(c));
}

Parsed parse_words(const std::vector<std::string> &words, bool cmdline, bool set, const machine::Snapshot &s)
{
	Parsed p;
	std::set<std::string> seen;
	if (words.empty())
		p.errors.push_back(set ? "no KEY=VALUE given" : "no KEY given");
	for (const auto &w : words) {
		std::size_t eq = w.find('=');
		std::string key = w.substr(0, eq);
		if (set && eq == std::string::npos) {
			p.errors.push_back(fmt::format("'{}' has no value: write KEY=VALUE, e.g. {}=1", w, key));
			continue;
		}
		if (!set && eq != std::string::npos) {
			p.errors.push_back(fmt::format("'{}': unset takes KEY only, e.g. {}", w, key));
			continue;
		}
		std::optional<std::string> value;
		if (set)
			value = w.substr(eq + 1);
		if (cmdline) {
			std::size_t dot = key.find('.');
			std::string module = dot == std::string::npos ? "" : normalize(key.substr(0, dot));
			if (dot == std::string::npos || dot + 1 == key.size() ||
			    std::find(std::begin(kCmdlineModules), std::end(kCmdlineModules), module) ==
				    std::end(kCmdlineModules)) {
				p.errors.push_back(fmt::format("'{}': --cmdline takes amdgpu.*, rdnafix.*, ttm.* or "
							       "amdttm.* parameters, e.g. amdgpu.noretry=1",
							       w));
				continue;
			}
			std::string param = module + "." + normalize(key.substr(dot + 1));
			if (!seen.insert(param).second) {
				p.errors.push_back(fmt::format("'{}': {} is given twice", w, param));
				continue;
			}
			p.cmdline.push_back(CmdlineChange{param, value});
			continue;
		}
		if (key == kValidateUserKey) {
			if (!seen.insert(key).second) {
				p.errors.push_back(fmt::format("'{}': {} is given twice", w, key));
				continue;
			}
			p.services.push_back(ServiceChange{key, value});
			continue;
		}
		if (normalize(key) == "ttm_limit") {
			const std::string m = ttm_module(s);
			std::optional<std::string> pages;
			if (set) {
				auto bytes = parse_size(*value);
				if (!bytes) {
					p.errors.push_back(fmt::format("invalid value '{}' for ttm-limit: {}", *value,
								       bytes.error().message));
					continue;
				}
				pages = std::to_string(*bytes / kTtmPageBytes);
			}
			add_unique(p, seen, ModuleChange{m, "pages_limit", pages}, w);
			add_unique(p, seen, ModuleChange{m, "page_pool_size", pages}, w);
			continue;
		}
		auto k = split_key(key);
		if (!k) {
			p.errors.push_back(fmt::format("unknown key '{}': rdnactl config manages {}", key, key_list()));
			continue;
		}
		add_unique(p, seen, ModuleChange{k->first, k->second, value}, w);
	}
	return p;
}

} // namespace

std::span<const KeySpec> managed_keys()
{
	return kKeys;
}

const KeySpec *find_key(std::string_view module, std::string_view name)
{
	for (const auto &k : kKeys)
		if (k.module == module && k.name == name)
			return &k;
	return nullptr;
}

std::uint64_t ttm_ceiling_bytes(std::uint64_t mem_total)
{
	const std::uint64_t reserve = std::max<std::uint64_t>(mem_total / 8, 1ull << 30);
	return mem_total > reserve ? mem_total - reserve : 0;
}

core::Result<std::uint64_t> parse_size(std::string_view text)
{
	const char *bad = "expected a size such as 96G, 98304M or a number of bytes (units K, M, G, T are "
			  "powers of 1024), a multiple of 4096 bytes";
	std::size_t n = 0;
	while (n < text.size() && text[n] >= '0' && text[n] <= '9')
		++n;
	std::uint64_t v = 0;
	if (n == 0 || n > 15 || std::from_chars(text.data(), text.data() + n, v).ec != std::errc())
		return core::Error{bad};
	std::string unit(text.substr(n));
	for (auto &c : unit)
		c = char(std::toupper(static_cast<unsigned char>(c)));
	if (unit.size() == 3 && unit.substr(1) == "IB")
		unit.resize(1);
	int shift = 0;
	if (unit == "K")
		shift = 10;
	else if (unit == "M")
		shift = 20;
	else if (unit == "G")
		shift = 30;
	else if (unit == "T")
		shift = 40;
	else if (!unit.empty() && unit != "B")
		return core::Error{bad};
	if (v > (~0ull >> shift) || v == 0)
		return core::Error{bad};
	v <<= shift;
	if (v % kTtmPageBytes != 0)
		return core::Error{fmt::format("{} bytes is not a multiple of the 4096-byte page", v)};
	return v;
}

std::string gib(std::uint64_t bytes)
{
	return fmt::format("{:.1f} GiB", double(bytes) / double(1ull << 30));
}

std::string ttm_module(const machine::Snapshot &s)
{
	return s.boot.amdgpu_dkms ? "amdttm" : "ttm";
}

Checked check_module_changes(const std::vector<ModuleChange> &changes, const machine::Snapshot &s)
{
	Checked out;
	for (const auto &c : changes) {
		const KeySpec *k = find_key(c.module, c.name);
		if (!k) {
			out.errors.push_back(fmt::format("{}.{} is not a key rdnactl config manages ({})", c.module,
							 c.name, key_list()));
			continue;
		}
		if (!c.value)
			continue;
		// ttm-limit sets pages_limit and page_pool_size to one value: one reason is enough.
		if (c.name == "page_pool_size" &&
		    std::any_of(changes.begin(), changes.end(), [&](const ModuleChange &o) {
			    return o.module == c.module && o.name == "pages_limit" && o.value == c.value;
		    }))
			continue;
		std::optional<std::string> e;
		if (c.module == "rdnafix")
			e = check_rdnafix(c.name, *c.value, k->valid);
		else if (c.module == "amdgpu")
			e = check_amdgpu(c.name, *c.value, k->valid, &out.warnings);
		else
			e = check_ttm(c.module, c.name, *c.value, s);
		if (e)
			out.errors.push_back(*e);
	}
	return out;
}

Checked check_cmdline_changes(const std::vector<CmdlineChange> &changes, const machine::Snapshot &s)
{
	Checked out;
	for (const auto &c : changes) {
		std::size_t dot = c.param.find('.');
		std::string module = dot == std::string::npos ? "" : c.param.substr(0, dot);
		std::string name = dot == std::string::npos ? "" : normalize(c.param.substr(dot + 1));
		if (name.empty() || std::find(std::begin(kCmdlineModules), std::end(kCmdlineModules), module) ==
					    std::end(kCmdlineModules)) {
			out.errors.push_back(fmt::format("{}: only amdgpu.*, rdnafix.*, ttm.* and amdttm.* kernel "
							 "parameters are managed",
							 c.param));
			continue;
		}
		if (!c.value)
			continue;
		if (find_key(module, name)) {
			auto one = check_module_changes({ModuleChange{module, name, c.value}}, s);
			out.errors.insert(out.errors.end(), one.errors.begin(), one.errors.end());
			out.warnings.insert(out.warnings.end(), one.warnings.begin(), one.warnings.end());
		} else if (c.value->empty() || !plain_value(*c.value)) {
			out.errors.push_back(
				fmt::format("invalid value '{}' for {}: rdnactl writes one word of letters, "
					    "digits and _ . , : + - to the kernel command line",
					    *c.value, c.param));
		}
	}
	return out;
}

Parsed parse_set_words(const std::vector<std::string> &words, bool cmdline, const machine::Snapshot &s)
{
	return parse_words(words, cmdline, true, s);
}

Parsed parse_unset_words(const std::vector<std::string> &words, bool cmdline, const machine::Snapshot &s)
{
	return parse_words(words, cmdline, false, s);
}

} // namespace rdnafix::config
