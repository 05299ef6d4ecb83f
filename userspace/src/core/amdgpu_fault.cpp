// amdgpu VM fault decoding: the status register, the fault block's lines and
// their grouping (tables in amdgpu_fault_tables.cpp).
#include "core/amdgpu_fault.hpp"

#include "core/parse.hpp"

#include <cctype>

#include <fmt/format.h>

namespace rdnafix::core::amdgpu_fault {

namespace {

bool contains(std::string_view hay, std::string_view needle)
{
	return hay.find(needle) != std::string_view::npos;
}

// Decimal digits at `s` (at most 10); nullopt when none.
std::optional<unsigned> dec_at(std::string_view s)
{
	std::size_t n = 0;
	while (n < s.size() && n < 10 && std::isdigit(static_cast<unsigned char>(s[n])))
		++n;
	if (n == 0)
		return std::nullopt;
	const auto v = parse_u64(s.substr(0, n));
	if (!v || *v > 0xffffffffull)
		return std::nullopt;
	return unsigned(*v);
}

// "key:<decimal>" anywhere in the line.
std::optional<unsigned> field(std::string_view line, std::string_view key)
{
	const auto at = line.find(key);
	if (at == std::string_view::npos)
		return std::nullopt;
	return dec_at(line.substr(at + key.size()));
}

Hub hub_of_reg(std::string_view reg)
{
	if (reg.starts_with("GCVM"))
		return Hub::gfxhub;
	if (reg.starts_with("MMVM"))
		return Hub::mmhub;
	return Hub::unknown;
}

// "Process <name> pid <n> thread <name> pid <n>" starting at `s`.
bool parse_process_words(std::string_view s, VmFault *f)
{
	const auto p1 = s.find(" pid ");
	if (p1 == std::string_view::npos)
		return false;
	const auto t = s.find(" thread ", p1);
	if (t == std::string_view::npos)
		return false;
	const auto p2 = s.find(" pid ", t + 8);
	if (p2 == std::string_view::npos)
		return false;
	f->process = std::string(trim(s.substr(0, p1)));
	f->pid = dec_at(s.substr(p1 + 5));
	f->thread = std::string(trim(s.substr(t + 8, p2 - t - 8)));
	f->thread_pid = dec_at(s.substr(p2 + 5));
	return true;
}

} // namespace

std::string_view hub_name(Hub h)
{
	switch (h) {
	case Hub::gfxhub:
		return "gfxhub";
	case Hub::mmhub:
		return "mmhub";
	case Hub::unknown:
		break;
	}
	return "unknown hub";
}

FaultStatus decode_status(std::uint32_t raw, std::string_view reg, std::string_view gfx)
{
	FaultStatus f;
	f.raw = raw;
	f.reg = std::string(reg);
	f.more_faults = raw & 0x1u;
	f.walker_error = (raw >> 1) & 0x7u;
	f.permission_faults = (raw >> 4) & 0xfu;
	f.mapping_error = (raw >> 8) & 0x1u;
	f.cid = (raw >> 9) & 0x1ffu;
	f.write = (raw >> 18) & 0x1u;
	f.vmid = (raw >> 20) & 0xfu;
	f.hub = hub_of_reg(reg);
	f.table = client_table_for(f.hub, gfx);
	if (f.table != ClientTable::none) {
		f.client = client_name(f.table, f.cid, f.write);
		if (f.client.empty())
			f.client = "unknown";
	}
	return f;
}

std::string FaultStatus::permissions() const
{
	static const char *const bits[] = {"PTE not valid", "PTE not readable", "PTE not writable",
					   "PTE not executable"};
	std::string perm;
	for (unsigned b = 0; b < 4; ++b)
		if (permission_faults & (1u << b))
			perm += (perm.empty() ? "" : ", ") + std::string(bits[b]);
	return perm;
}

std::string FaultStatus::explain() const
{
	const std::string perm = permissions();
	return fmt::format("{}=0x{:08X}: client {}(0x{:x}), {} access, vmid {}, permission faults 0x{:x}{}{}{}{}",
			   reg.empty() ? "L2_PROTECTION_FAULT_STATUS" : reg, raw, client.empty() ? "" : client + " ",
			   cid, write ? "write" : "read", vmid, permission_faults,
			   perm.empty() ? "" : " (" + perm + ")", mapping_error ? ", mapping error" : "",
			   walker_error ? fmt::format(", walker error 0x{:x}", walker_error) : "",
			   more_faults ? ", more faults followed" : "");
}

std::optional<FaultStatus> find_status(std::string_view line, std::string_view gfx)
{
	static const std::string_view suffix = "_L2_PROTECTION_FAULT_STATUS";
	const auto at = line.find(suffix);
	if (at == std::string_view::npos)
		return std::nullopt;
	std::size_t start = at;
	while (start > 0 && (std::isalnum(static_cast<unsigned char>(line[start - 1])) || line[start - 1] == '_'))
		--start;
	const std::string_view reg = line.substr(start, at + suffix.size() - start);
	std::size_t i = at + suffix.size();
	// GFX12 prints "..._STATUS_LO32:0x"; ":", "=", ": " and " " separate the value.
	if (line.substr(i).starts_with("_LO32"))
		i += 5;
	while (i < line.size() && (line[i] == ':' || line[i] == '=' || line[i] == ' '))
		++i;
	if (!line.substr(i).starts_with("0x") && !line.substr(i).starts_with("0X"))
		return std::nullopt;
	const std::size_t hex_begin = i + 2;
	std::size_t hex_end = hex_begin;
	while (hex_end < line.size() && std::isxdigit(static_cast<unsigned char>(line[hex_end])))
		++hex_end;
	if (hex_end == hex_begin || hex_end - hex_begin > 8)
		return std::nullopt;
	const auto v = parse_u64("0x" + std::string(line.substr(hex_begin, hex_end - hex_begin)));
	if (!v)
		return std::nullopt;
	return decode_status(std::uint32_t(*v), reg, gfx);
}

std::string device_of(std::string_view line)
{
	// "amdgpu 0000:0b:00.0:" -> the BDF
	const auto at = line.find("amdgpu ");
	if (at == std::string_view::npos)
		return "";
	const std::string_view rest = line.substr(at + 7);
	if (rest.size() < 12 || rest[4] != ':' || rest[7] != ':' || rest[10] != '.')
		return "";
	for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11})
		if (!std::isxdigit(static_cast<unsigned char>(rest[i])))
			return "";
	return std::string(rest.substr(0, 12));
}

bool parse_page_fault_line(std::string_view line, VmFault *f)
{
	const auto pf = line.find("page fault (");
	if (pf == std::string_view::npos)
		return false;
	const auto lb = line.rfind('[', pf);
	if (lb == std::string_view::npos)
		return false;
	const std::string_view hub = line.substr(lb + 1, pf - lb - 1);
	if (hub.starts_with("gfxhub"))
		f->hub = Hub::gfxhub;
	else if (hub.starts_with("mmhub"))
		f->hub = Hub::mmhub;
	else
		return false;
	f->retry = contains(line.substr(lb, pf - lb), "retry") && !contains(line.substr(lb, pf - lb), "no-retry");
	const std::string_view args = line.substr(pf);
	f->src_id = field(args, "src_id:");
	f->ring = field(args, "ring:");
	f->vmid = field(args, "vmid:");
	f->pasid = field(args, "pasid:");
	if (const auto fp = args.find("for process "); fp != std::string_view::npos)
		parse_process_words(args.substr(fp + 12), f);
	f->device = device_of(line);
	return true;
}

bool parse_process_line(std::string_view line, VmFault *f)
{
	// "  Process python pid 5578 thread ..." (Linux 6.5+) or, on a line of its own after the
	// page-fault line, "  for process pt_main_thread pid 12924 thread ... pid 12924)" (ROCm/amdgpu#172)
	auto at = line.find(" Process ");
	std::size_t skip = 9;
	if (at == std::string_view::npos) {
		at = line.find(" for process ");
		skip = 13;
	}
	if (at ==
	    std::string_view::npos) { // "amdgpu:  in process NAME pid N thread NAME pid N)" (ROCm/rocm-libraries#1132)
		at = line.find(" in process ");
		skip = 12;
	}
	if (at == std::string_view::npos || contains(line, "page fault"))
		return false;
	return parse_process_words(line.substr(at + skip), f);
}

std::optional<std::uint64_t> hex_after(std::string_view line, std::string_view key)
{
	const auto at = line.find(key);
	if (at == std::string_view::npos)
		return std::nullopt;
	std::size_t b = at + key.size(), e = b;
	while (e < line.size() && e - b < 16 && std::isxdigit(static_cast<unsigned char>(line[e])))
		++e;
	if (e == b)
		return std::nullopt;
	const auto v = parse_u64("0x" + std::string(line.substr(b, e - b)));
	if (!v)
		return std::nullopt;
	return *v;
}

std::optional<std::uint64_t> parse_fault_address(std::string_view line)
{
	return hex_after(line, "in page starting at address 0x");
}

std::vector<VmFault> parse_vm_faults(const std::vector<std::string_view> &lines, std::string_view gfx)
{
	VmFaultParser p(gfx);
	for (std::size_t i = 0; i < lines.size(); ++i)
		p.feed(lines[i], i);
	return p.finish();
}

void VmFaultParser::feed(std::string_view line, std::size_t index)
{
	// The fault being assembled accepts a process line, addresses and one status.
	VmFault pf;
	if (parse_page_fault_line(line, &pf)) {
		pf.first_index = pf.last_index = index;
		// Some logs carry the status block just before its page-fault line
		// (journal reordering, or the register of the previous fault): a
		// status-only fault of the same VMID right before is this one.
		if (open_ && has_last_ && out_.back().status && !out_.back().pasid && out_.back().vmid == pf.vmid) {
			auto &last = out_.back();
			pf.status = std::move(last.status);
			pf.kernel_client = std::move(last.kernel_client);
			pf.first_index = last.first_index;
			last = std::move(pf);
		} else {
			out_.push_back(std::move(pf));
		}
		open_ = has_last_ = true;
		return;
	}
	if (auto st = find_status(line, gfx_)) {
		// The kernel prints the status after the page-fault lines (and, on
		// some versions, before them); a status with none open starts a fault.
		if (!open_ || !has_last_ || out_.back().status) {
			VmFault only;
			only.device = device_of(line);
			only.hub = st->hub;
			only.first_index = index;
			out_.push_back(std::move(only));
			has_last_ = true;
		}
		auto &f = out_.back();
		f.status = std::move(*st);
		if (f.hub == Hub::unknown)
			f.hub = f.status->hub;
		if (!f.vmid)
			f.vmid = f.status->vmid;
		f.last_index = index;
		open_ = true;
		return;
	}
	if (!open_ || !has_last_)
		return;
	auto &f = out_.back();
	if (parse_process_line(line, &f)) {
		f.last_index = index;
		return;
	}
	if (const auto a = parse_fault_address(line)) {
		if (f.address)
			++f.repeats;
		else
			f.address = a;
		f.last_index = index;
		return;
	}
	if (const auto c = line.find("Faulty UTCL2 client ID: "); c != std::string_view::npos) {
		std::string_view name = line.substr(c + 24);
		if (const auto p = name.rfind(" ("); p != std::string_view::npos)
			name = name.substr(0, p);
		f.kernel_client = std::string(trim(name));
		f.last_index = index;
		return;
	}
	bool detail = false;
	for (std::string_view k :
	     {"MORE_FAULTS:", "WALKER_ERROR:", "PERMISSION_FAULTS:", "MAPPING_ERROR:", " RW:", "callbacks suppressed"})
		detail = detail || contains(line, k);
	if (detail)
		f.last_index = index;
	else
		open_ = false; // any other line ends the block
}

std::vector<VmFault> VmFaultParser::take_complete()
{
	// Only the last fault can still change (a page-fault line may take over
	// a status-only fault; detail lines extend it), and only while open.
	std::vector<VmFault> done;
	const std::size_t n = out_.size() - (has_last_ && open_ ? 1 : 0);
	done.assign(std::make_move_iterator(out_.begin()), std::make_move_iterator(out_.begin() + std::ptrdiff_t(n)));
	out_.erase(out_.begin(), out_.begin() + std::ptrdiff_t(n));
	if (out_.empty())
		has_last_ = false;
	return done;
}

std::vector<VmFault> VmFaultParser::finish()
{
	open_ = false;
	return take_complete();
}

std::optional<std::size_t> VmFaultParser::open_since() const
{
	if (!has_last_ || !open_ || out_.empty())
		return std::nullopt;
	return out_.back().first_index;
}

std::string_view gfx10_mtype_fact()
{
	return "on RDNA1/RDNA2 the kernel maps this memory NC or UC, never CC (drivers/gpu/drm/amd/amdgpu/"
	       "gmc_v10_0.c: gmc_v10_0_get_vm_pte, amdgpu_vm.c, amdgpu_ttm.c), so a ROCm rebuild for "
	       "\"MTYPE_NC\" is not the cure";
}

} // namespace rdnafix::core::amdgpu_fault
