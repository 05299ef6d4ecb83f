// The transfers kind: host<->device copies 4 KiB .. 1 GiB with pinned or
// pageable host memory (gpu/transfers.cpp); the judge here decides.
#include <algorithm>

#include <fmt/format.h>

#include "cases/kinds.hpp"

namespace rdnafix::validate {

std::vector<CaseDef> transfer_cases()
{
	CaseDef pinned;
	pinned.name = "transfer.pinned";
	pinned.kind = CaseKind::transfers;
	pinned.origin = "host<->device copies, pinned host memory, 4 KiB..1 GiB";
	pinned.quick = true;
	pinned.pinned = true;
	CaseDef pageable = pinned;
	pageable.name = "transfer.pageable";
	pageable.origin = "host<->device copies, pageable host memory, 4 KiB..1 GiB";
	pageable.pinned = false;
	return {pinned, pageable};
}

std::vector<std::size_t> transfer_sizes(bool full)
{
	std::vector<std::size_t> v;
	const std::size_t top = full ? (std::size_t(1) << 30) : (std::size_t(64) << 20);
	for (std::size_t b = 4096; b <= top; b *= 4)
		v.push_back(b);
	return v;
}

CaseResult judge_transfers(const CaseDef &c, const std::vector<gpu::TransferPoint> &pts)
{
	CaseResult r;
	r.name = c.name;
	std::size_t bad = 0;
	for (const auto &p : pts)
		bad += !p.verified;
	r.status = bad == 0 && !pts.empty() ? Status::pass : Status::fail;
	if (pts.empty())
		r.reason = "no transfer sizes ran";
	else if (bad)
		r.reason = fmt::format("{} of {} transfer sizes did not round-trip bit-exactly", bad, pts.size());
	if (!pts.empty())
		r.gbs = std::min(pts.back().h2d.gbs, pts.back().d2h.gbs);
	return r;
}

} // namespace rdnafix::validate
