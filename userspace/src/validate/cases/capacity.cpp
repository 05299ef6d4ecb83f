// The capacity kind: allocate and verify --capacity-fraction of the memory the
// device reports (gpu/capacity.cpp); the judge here decides.
#include <fmt/format.h>

#include "cases/kinds.hpp"

namespace rdnafix::validate {

std::vector<CaseDef> capacity_cases()
{
	CaseDef c;
	c.name = "capacity";
	c.kind = CaseKind::capacity;
	c.origin = "allocate and verify --capacity-fraction of the memory the device reports";
	return {c};
}

CaseResult judge_capacity(const CaseDef &c, const gpu::CapacityResult &cr, double fraction)
{
	CaseResult r;
	r.name = c.name;
	const double gib = double(1 << 30);
	if (cr.bad_words) {
		r.status = Status::fail;
		r.reason = fmt::format("{} 32-bit words did not read back in {:.2f} GiB", cr.bad_words,
				       double(cr.allocated) / gib);
	} else if (!cr.stop_reason.empty()) {
		r.status = Status::fail;
		r.reason = fmt::format("allocated only {:.2f} of {:.2f} GiB ({:.0f} % of the {:.2f} GiB reported): {}",
				       double(cr.allocated) / gib, double(cr.target_bytes) / gib, fraction * 100,
				       double(cr.reported_total) / gib, cr.stop_reason);
	} else {
		r.status = Status::pass;
	}
	r.gbs = cr.fill_gbs;
	return r;
}

} // namespace rdnafix::validate
