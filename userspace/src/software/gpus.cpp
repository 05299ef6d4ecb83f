// Pure: the GPUs the scan judges, from the snapshot and --gfx, with the
// XNACK / SRAM ECC mode their code objects must match.
#include "software/libdirs.hpp"
#include "software/scan.hpp"

#include "core/gpudb.hpp"
#include "core/parse.hpp"
#include "core/rules.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace rdnafix::coverage {

namespace {

// XNACK is on only where KFD may enable it (GC < 10.1.1, or >= 12.1.0 from
// Linux 7.2: rules::kfd_xnack_possible) and the process asks (HSA_XNACK=1).
void decide_xnack(Gpu &g, const machine::Snapshot &s, const machine::Device *d)
{
	auto target = gpudb::parse_gfx_name(g.gfx);
	if (target && target->major >= 10)
		g.sramecc = false; // RDNA has no SRAM ECC mode
	auto hx = s.environment.vars.find("HSA_XNACK");
	bool asked = hx != s.environment.vars.end() && hx->second == "1";
	if (!asked)
		return;
	bool possible = target && target->major < 10;
	if (d && d->gc_version) {
		auto gc = core::parse_gc_version(*d->gc_version);
		auto kr = core::parse_kernel_release(s.driver.kernel_release);
		if (gc && kr)
			possible = rules::kfd_xnack_possible(*kr, *gc);
	}
	g.xnack_on = possible;
	g.note = possible ? "HSA_XNACK=1: XNACK on" : "HSA_XNACK=1 is ignored by KFD on this GPU: XNACK off";
}

// "gfx1031", "gfx90a:xnack+:sramecc-"; nullopt for anything else.
std::optional<core::codeobj::TargetId> parse_gfx_option(std::string_view e)
{
	core::codeobj::TargetId t;
	auto colon = e.find(':');
	std::string_view proc = e.substr(0, colon);
	// gfx1xxx has four characters after "gfx" (gfx1031), the others three (gfx90a).
	if (proc.size() != (proc.size() > 3 && proc[3] == '1' ? 7u : 6u) || !gpudb::parse_gfx_name(proc) ||
	    std::any_of(proc.begin(), proc.end(), [](char c) { return c >= 'A' && c <= 'Z'; }))
		return std::nullopt;
	t.processor = std::string(proc);
	while (colon != std::string_view::npos) {
		std::string_view rest = e.substr(colon + 1);
		colon = rest.find(':');
		std::string_view item = rest.substr(0, colon);
		if (colon != std::string_view::npos)
			colon += e.size() - rest.size();
		core::codeobj::Feature *f = item.starts_with("xnack")     ? &t.xnack
					    : item.starts_with("sramecc") ? &t.sramecc
									  : nullptr;
		std::size_t len = f == &t.xnack ? 5 : 7;
		if (!f || item.size() != len + 1 || (item.back() != '+' && item.back() != '-') ||
		    *f != core::codeobj::Feature::any)
			return std::nullopt;
		*f = item.back() == '+' ? core::codeobj::Feature::on : core::codeobj::Feature::off;
	}
	return t;
}

} // namespace

core::Result<std::vector<Gpu>> gpus_of(const machine::Snapshot &s, const std::vector<std::string> &extra, bool devices)
{
	std::vector<Gpu> out;
	if (devices)
		for (const auto &d : s.devices) {
			if (!d.is_amd || !d.gfx_target)
				continue;
			Gpu g;
			g.device = d.pci_bdf.empty() ? d.card : d.pci_bdf;
			g.gfx = *d.gfx_target;
			decide_xnack(g, s, &d);
			out.push_back(std::move(g));
		}
	for (const auto &e : extra) {
		auto t = parse_gfx_option(e);
		if (!t)
			return core::Error{
				fmt::format("--gfx '{}' is not a GPU target: expected gfx + 3 or 4 characters "
					    "as the kernel reports it (gfx1031, gfx90a), optionally followed by "
					    ":xnack+, :xnack-, :sramecc+ or :sramecc-",
					    e)};
		Gpu g;
		g.gfx = t->processor;
		if (t->sramecc != core::codeobj::Feature::any)
			g.sramecc = t->sramecc == core::codeobj::Feature::on;
		if (t->xnack != core::codeobj::Feature::any)
			g.xnack_on = t->xnack == core::codeobj::Feature::on;
		else
			decide_xnack(g, s, nullptr);
		if (!g.sramecc) {
			auto target = gpudb::parse_gfx_name(g.gfx);
			if (target && target->major >= 10)
				g.sramecc = false;
		}
		out.push_back(std::move(g));
	}
	return out;
}

} // namespace rdnafix::coverage
