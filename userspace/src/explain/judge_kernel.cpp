// The judge of kernel-side matches (VM faults, ring timeouts, resets, MES,
// firmware) and of the remaining runtime messages.  Pure.
#include "explain/judge_support.hpp"

#include "core/gpudb.hpp"

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
	const auto &s = *m.snap;
	switch (mt.sig) {
	case Sig::ring_timeout:
		e->decoded.push_back("ring " + mt.detail);
		if (g)
			noretry_here(*g, e);
		e->fix.push_back("look at the process named by the timeout: it submitted the job that hung");
		break;
	case Sig::gpu_reset:
		e->decoded.push_back(fmt::format("reset sequence: {} line(s)", mt.excerpt.size()));
		if (std::any_of(mt.excerpt.begin(), mt.excerpt.end(),
				[](const std::string &l) { return l.find("VRAM is lost") != std::string::npos; }))
			e->decoded.push_back("VRAM was lost: every GPU buffer of every process is gone");
		if (g)
			noretry_here(*g, e);
		e->fix.push_back("restart the programs that used the GPU; the cause is in the lines before the reset");
		break;
	case Sig::mes_failure:
		e->decoded.push_back("MES message: " + (mt.detail.empty() ? std::string("(not printed)") : mt.detail));
		if (g && g->dev->generation && *g->dev->generation != gpudb::Generation::rdna3 &&
		    *g->dev->generation != gpudb::Generation::rdna3_5 &&
		    *g->dev->generation != gpudb::Generation::rdna4)
			e->here.push_back(fmt::format("{} does not use MES (GFX11+ only): the log is not from this GPU",
						      g->label));
		if (!s.driver.kernel_release.empty())
			e->here.push_back("kernel here: " + s.driver.kernel_release);
		e->fix.push_back("update linux-firmware and the kernel together");
		e->remedies.push_back(core::InstallPackage{core::InstallPackage::Kind::package, "linux-firmware"});
		break;
	case Sig::firmware_load:
		if (!mt.detail.empty())
			e->decoded.push_back("firmware file: " + mt.detail);
		if (!s.driver.kernel_release.empty())
			e->here.push_back("kernel here: " + s.driver.kernel_release +
					  (s.driver.amdgpu_loaded ? ", amdgpu loaded" : ", amdgpu not loaded"));
		e->fix.push_back(
			"install the newest linux-firmware (Debian: firmware-amd-graphics from the same release as "
			"the kernel) and rebuild the initramfs");
		e->remedies.push_back(
			core::InstallPackage{core::InstallPackage::Kind::package, "firmware-amd-graphics"});
		break;
	case Sig::hw_exception_gpu_hang:
		if (mt.node) {
			const Gpu *n = gpu_by_node(m, *mt.node);
			e->decoded.push_back(
				fmt::format("KFD node {}{}", *mt.node, n ? " = " + n->label + " here" : ""));
			if (n)
				noretry_here(*n, e);
		}
		e->fix.push_back(
			"read the kernel log of the same moment for the reason of the hang (sudo dmesg | rdnactl "
			"explain -)");
		break;
	case Sig::amdgpu_ids_missing:
		e->decoded.push_back("libdrm looked for " + mt.detail);
		e->here.push_back("harmless: only the marketing name of the GPU is affected");
		e->fix.push_back(fmt::format("optional: sudo mkdir -p {} && sudo ln -s /usr/share/libdrm/amdgpu.ids {}",
					     mt.detail.substr(0, mt.detail.rfind('/')), mt.detail));
		break;
	case Sig::out_of_memory:
		for (const auto &x : m.gpus) {
			if (x.dev->vram_total_bytes)
				e->here.push_back(
					fmt::format("{}: {} MiB VRAM", x.label, *x.dev->vram_total_bytes >> 20));
			if (x.dev->apu.value_or(false) && s.driver.ttm_limit_bytes)
				e->here.push_back(
					fmt::format("{} is an APU: GPU-mappable system memory is capped at {} MiB "
						    "(TTM pages_limit)",
						    x.label, *s.driver.ttm_limit_bytes >> 20));
		}
		e->fix.push_back("reduce the batch size or precision; free memory held by other processes");
		break;
	case Sig::no_gpu_visible:
	case Sig::invalid_argument:
		if (!s.driver.amdgpu_loaded)
			e->here.push_back("amdgpu is not loaded on this machine");
		for (const auto &n : s.access.nodes)
			if (n.kernel_allows_rw && !*n.kernel_allows_rw)
				e->here.push_back(fmt::format("{} cannot be opened read-write by this user ({})",
							      n.path, n.kernel_refusal));
		for (const auto &v : s.environment.visible)
			e->here.push_back(
				fmt::format("{}={} selects GPU indices {}", v.name, v.value,
					    v.parsed ? fmt::format("{}", fmt::join(v.indices, ",")) : "(unparsed)"));
		e->here.push_back(fmt::format("{} AMD GPU(s) on this machine", m.gpus.size()));
		e->fix.push_back("run `rdnactl status`: it checks access, the visibility variables and the driver");
		break;
	default:
		break;
	}
}

} // namespace rdnafix::explain::detail
