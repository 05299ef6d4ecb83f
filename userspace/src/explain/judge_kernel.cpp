// The judge of kernel-side matches (VM faults, ring timeouts, resets, MES,
// firmware) and of the remaining runtime messages.  Pure.
#include "explain/judge_support.hpp"

#include "core/gpudb.hpp"
#include "core/parse.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace rdnafix::explain::detail {

namespace af = core::amdgpu_fault;

namespace {

// What a UTCL2 client is, in words.
std::string_view client_role(std::string_view c)
{
	if (c == "TCP" || c.starts_with("SQC") || c == "SQG")
		return "shader memory access (a compute or graphics kernel)";
	if (c == "CB/DB")
		return "render back-end (graphics)";
	if (c == "CPC" || c == "CPF" || c == "CPG")
		return "command processor (queue / ring buffer / packet fetch)";
	if (c.starts_with("SDMA"))
		return "SDMA copy engine (memcpy between host and GPU)";
	if (c.starts_with("VCN") || c == "JPEG")
		return "video decode / encode";
	if (c.starts_with("DCE"))
		return "display";
	if (c == "RLC" || c.starts_with("MP") || c == "GCR")
		return "firmware / cache controller";
	return "";
}

// The GPU a kernel message is about: by PCI address, else the only AMD GPU.
const Gpu *gpu_of(const Machine &m, const std::string &bdf)
{
	if (const Gpu *g = gpu_by_bdf(m, bdf))
		return g;
	return m.gpus.size() == 1 && bdf.empty() ? &m.gpus.front() : nullptr;
}

void device_here(const Machine &m, const std::string &bdf, Explanation *e)
{
	if (!bdf.empty() && !gpu_by_bdf(m, bdf))
		e->here.push_back(fmt::format("no AMD GPU at {} on this machine: the log comes from another machine "
					      "(or the GPU moved)",
					      bdf));
}

// RDNA1 with noretry=0: a fault can hang the GPU (the retry storm).
void noretry_here(const Gpu &g, Explanation *e)
{
	if (!g.dev->generation || *g.dev->generation != gpudb::Generation::rdna1 || !g.noretry)
		return;
	if (*g.noretry == 0) {
		e->here.push_back(fmt::format("{} runs with noretry=0 ({}): a page fault is retried instead of "
					      "reported and can hang the GPU",
					      g.label, g.noretry_rule));
		e->fix.push_back("set amdgpu.noretry=1 on the kernel command line (or `rdnactl config`), then reboot");
		e->remedies.push_back(core::KernelParam{core::KernelParam::Action::add, "amdgpu.noretry", "1"});
	} else {
		e->here.push_back(fmt::format("{} runs with noretry=1 ({})", g.label, g.noretry_rule));
	}
}

} // namespace

void judge_vm_fault(const Machine &m, Explanation *e)
{
	const auto &f = *e->match.fault;
	const Gpu *g = gpu_of(m, f.device);
	device_here(m, f.device, e);
	e->decoded.push_back(fmt::format("{}{} page fault{}{}{}", af::hub_name(f.hub), f.retry ? " retry" : "",
					 f.device.empty() ? "" : " on " + f.device,
					 f.vmid ? fmt::format(", vmid {}", *f.vmid) : "",
					 f.pasid ? fmt::format(", pasid {}", *f.pasid) : ""));
	if (!f.process.empty() || f.pid)
		e->decoded.push_back(fmt::format(
			"process {} pid {}{}", f.process.empty() ? "(none)" : f.process,
			f.pid ? std::to_string(*f.pid) : "?",
			f.thread.empty() ? ""
					 : fmt::format(" (thread {} pid {})", f.thread,
						       f.thread_pid ? std::to_string(*f.thread_pid) : "?")));
	if (f.pid && *f.pid == 0)
		e->decoded.push_back("pid 0: the fault came from a kernel-internal context (no user process)");
	if (e->match.count > 1)
		e->decoded.push_back(
			fmt::format("the same fault (process, VMID, status) {} times in the log", e->match.count));
	if (f.address) {
		std::string where;
		if (*f.address < 0x1000 * 16)
			where = " (near address 0: a null pointer)";
		else if (*f.address >= 0x7f0000000000ull && *f.address < 0x800000000000ull)
			where = " (a host-process address: userptr / SVM / host memory mapped for the GPU)";
		e->decoded.push_back(
			fmt::format("address 0x{:x}{}{}", *f.address, where,
				    f.repeats > 1 ? fmt::format(", {} fault addresses in the block", f.repeats) : ""));
	}
	if (f.status) {
		// re-decode with this GPU's table (the mmhub tables differ per GPU)
		const auto st = g ? af::decode_status(f.status->raw, f.status->reg, g->gfx) : *f.status;
		e->fault_status = st;
		e->decoded.push_back(st.explain());
		if (!st.client.empty() && st.client != "unknown") {
			const auto role = client_role(st.client);
			e->decoded.push_back(fmt::format("client {}{}{} (table: {})", st.client,
							 role.empty() ? "" : ": ", role,
							 af::client_table_source(st.table)));
		} else if (st.hub == af::Hub::mmhub && st.table == af::ClientTable::none) {
			e->decoded.push_back(fmt::format("mmhub client 0x{:x}: no client table known for {}", st.cid,
							 g ? g->gfx : std::string("this GPU (unknown)")));
		}
		if (!f.kernel_client.empty() && !st.client.empty() && f.kernel_client != st.client)
			e->decoded.push_back(
				fmt::format("the kernel printed client \"{}\"; the table for {} says \"{}\"",
					    f.kernel_client, g ? g->gfx : "GFX10/11", st.client));
		if (st.permission_faults & 0x1)
			e->decoded.push_back(
				"PTE not valid: the address is not mapped for this process (out of bounds, "
				"freed memory, or a wrong pointer)");
		if (f.vmid && *f.vmid != st.vmid && st.raw != 0)
			e->decoded.push_back(fmt::format("the status register holds vmid {} (the page fault line {}): "
							 "it belongs to an earlier fault",
							 st.vmid, *f.vmid));
	} else {
		e->decoded.push_back(
			"no L2 protection fault status printed for this fault (the kernel prints it for the "
			"first fault of a storm only)");
	}
	if (g) {
		judge_overrides(*g, e, true);
		noretry_here(*g, e);
	} else {
		for (const auto &x : m.gpus) // an unsafe override here is a cause whatever the log's address
			judge_overrides(x, e, true);
	}
	e->fix.push_back("the faulting program is the process named above: rerun it with AMD_SERIALIZE_KERNEL=3 to "
			 "name the kernel, and report it to that program with this block");
}

void judge_kernel_event(const Machine &m, Explanation *e)
{
	const auto &mt = e->match;
	const Gpu *g = gpu_of(m, mt.device);
	device_here(m, mt.device, e);
	if (!mt.device.empty())
		e->decoded.push_back("device " + mt.device + (g ? " = " + g->label + " here" : ""));
	if (mt.count > 1)
		e->decoded.push_back(fmt::format("{} times in the log", mt.count));
	if (mt.node) {
		const Gpu *n = gpu_by_node(m, *mt.node);
		e->decoded.push_back(fmt::format("KFD node {}{}", *mt.node, n ? " = " + n->label + " here" : ""));
		if (n)
			noretry_here(*n, e);
	} else if (g) {
		noretry_here(*g, e);
	}
	if (std::any_of(mt.excerpt.begin(), mt.excerpt.end(),
			[](const std::string &l) { return l.find("VRAM is lost") != std::string::npos; }))
		e->decoded.push_back("VRAM was lost: every GPU buffer of every process is gone");
	if (!m.snap->driver.kernel_release.empty())
		e->here.push_back("kernel here: " + m.snap->driver.kernel_release +
				  (m.snap->driver.amdgpu_loaded ? ", amdgpu loaded" : ", amdgpu not loaded"));
}

void judge_oom(const Machine &m, Explanation *e)
{
	const auto &s = *m.snap;
	const auto fact = [&](std::string_view name) -> std::optional<unsigned long long> {
		for (const auto &f : e->facts)
			if (f.name == name)
				if (const auto v = core::parse_u64(f.value))
					return *v;
		return std::nullopt;
	};
	const auto tried = fact("tried"), total = fact("total"), free = fact("free"),
		   reserved = fact("reserved_unallocated"), allocated = fact("allocated");
	namespace kn = knowledge;
	if (tried && reserved && *reserved >= *tried)
		e->decoded.push_back(fmt::format(
			"fragmentation: {} is reserved by PyTorch but unallocated, more than the {} asked for: the "
			"memory exists but not in one piece (PYTORCH_HIP_ALLOC_CONF=expandable_segments:True "
			"helps on amdgpu DRM 3.64 or later; it can hang older kernels)",
			kn::format_bytes(*reserved), kn::format_bytes(*tried)));
	else if (tried && free && *free < *tried)
		e->decoded.push_back(fmt::format("a ceiling: {} was asked for and {} was free{}",
						 kn::format_bytes(*tried), kn::format_bytes(*free),
						 total ? " of " + kn::format_bytes(*total) : ""));
	// what the device had that PyTorch's allocator did not hold: other processes, other libraries
	if (total && free && allocated && reserved && *total > *free + *allocated + *reserved) {
		const auto outside = *total - *free - *allocated - *reserved;
		if (outside >= (1ull << 30))
			e->decoded.push_back(
				fmt::format("{} of the {} was in use but not held by PyTorch's allocator: other "
					    "processes, libraries that allocate for themselves, and on an APU "
					    "the system memory the rest of the system uses",
					    kn::format_bytes(outside), kn::format_bytes(*total)));
	}
	for (const auto &x : m.gpus) {
		if (x.dev->vram_total_bytes && !x.dev->apu.value_or(false))
			e->here.push_back(
				fmt::format("{}: {} of VRAM", x.label, kn::format_bytes(*x.dev->vram_total_bytes)));
		if (x.dev->apu.value_or(false) && s.driver.ttm_limit_bytes) {
			const auto ttm = *s.driver.ttm_limit_bytes;
			e->here.push_back(
				fmt::format("{} is an APU: GPU-mappable system memory is capped at {} (TTM "
					    "pages_limit){}",
					    x.label, kn::format_bytes(ttm),
					    total && *total + (1ull << 30) >= ttm && *total <= ttm + (1ull << 30)
						    ? ": the log's total capacity is this limit"
						    : ""));
			e->fix.push_back("raise the limit: sudo rdnactl config set ttm-limit=<size> (then reboot); "
					 "rdnactl status shows the largest safe value");
		}
	}
	e->fix.push_back("reduce the batch size or precision; free memory held by other processes");
}

void judge_access(const Machine &m, Explanation *e)
{
	const auto &s = *m.snap;
	if (!s.driver.amdgpu_loaded)
		e->here.push_back("amdgpu is not loaded on this machine");
	for (const auto &n : s.access.nodes)
		if (n.kernel_allows_rw && !*n.kernel_allows_rw)
			e->here.push_back(fmt::format("{} cannot be opened read-write by this user ({})", n.path,
						      n.kernel_refusal));
	for (const auto &v : s.environment.visible)
		e->here.push_back(fmt::format("{}={} selects GPU indices {}", v.name, v.value,
					      v.parsed ? fmt::format("{}", fmt::join(v.indices, ",")) : "(unparsed)"));
	e->here.push_back(fmt::format("{} AMD GPU(s) on this machine", m.gpus.size()));
	e->fix.push_back("run `rdnactl status`: it checks access, the visibility variables and the driver");
}

} // namespace rdnafix::explain::detail
