// The scan: find the installations, read their device code, judge per GPU.
#include "software/scan.hpp"

#include "software/find.hpp"
#include "software/libdirs.hpp"

#include "io/rootfs.hpp"

#include <algorithm>
#include <chrono>
#include <fmt/format.h>

namespace rdnafix::coverage {

namespace {

void add_target(std::vector<core::codeobj::TargetId> &ts, const core::codeobj::TargetId &t)
{
	if (std::find(ts.begin(), ts.end(), t) == ts.end())
		ts.push_back(t);
}

} // namespace

// The targets of a read file: entries whose id and e_flags agree (the loader
// refuses an object whose header names another target), or the bare code
// object's own.
void fill_targets(Library &lib)
{
	if (!lib.file)
		return;
	const FatbinFile &f = *lib.file;
	if (f.kind == FileKind::unreadable)
		lib.problems.push_back("unreadable: " + f.unreadable);
	if (f.kind == FileKind::over_budget)
		lib.problems.push_back(f.unreadable);
	if (f.code_object)
		add_target(lib.targets, f.code_object->target);
	for (const auto &b : f.bundles) {
		if (!b.unreadable.empty())
			lib.problems.push_back(
				fmt::format("bundle at offset {}: unreadable: {}", b.file_offset, b.unreadable));
		for (const auto &e : b.entries) {
			if (!e.id.is_amdgcn() || !e.id.target)
				continue;
			if (!e.disagreement.empty()) {
				lib.problems.push_back(fmt::format("{}: {}", e.id.raw, e.disagreement));
				continue;
			}
			add_target(lib.targets, *e.id.target);
		}
	}
	std::sort(lib.targets.begin(), lib.targets.end(), target_less);
}

Report scan(io::RootFs &fs, const machine::Snapshot &s, const ScanOptions &opts)
{
	auto t0 = std::chrono::steady_clock::now();
	Report r;
	auto gpus = gpus_of(s, opts.gfx, opts.devices);
	if (gpus)
		r.gpus = *gpus;
	else
		r.notes.push_back(gpus.error().message);

	detail::Found f;
	if (!opts.paths.empty()) {
		for (const auto &p : opts.paths)
			detail::find_argument(fs, p, f);
	} else {
		detail::find_python(fs, s.environment, opts.pythons, f);
		if (opts.system) {
			detail::find_rocm(fs, s.environment, f);
			detail::find_consumers(fs, f);
		}
	}
	io::InflateBudget budget;
	budget.bytes_left = opts.max_inflate_total;
	budget.seconds_left = opts.max_inflate_seconds;
	std::size_t over = 0;
	for (auto &inst : f.installs)
		for (auto &lib : inst.libraries) {
			if (lib.kind != LibraryKind::fatbin)
				continue;
			lib.file = read_fatbin(fs, lib.path, opts.limits, &budget);
			r.bytes_read += lib.file->bytes_read;
			over += lib.file->kind == FileKind::over_budget;
			fill_targets(lib);
		}
	r.bytes_inflated = opts.max_inflate_total - budget.bytes_left;
	if (over > 0)
		f.notes.push_back(fmt::format(
			"{} file{} not read: decompression budget (compressed bundles may inflate to {} MiB in {:g} s "
			"per scan, {} MiB per file)",
			over, over == 1 ? "" : "s", opts.max_inflate_total >> 20, opts.max_inflate_seconds,
			opts.limits.max_inflate_file >> 20));
	r.installs = std::move(f.installs);
	for (auto &p : f.searched) // each place once, in the order first looked at
		if (std::find(r.searched.begin(), r.searched.end(), p) == r.searched.end())
			r.searched.push_back(std::move(p));
	r.notes.insert(r.notes.end(), f.notes.begin(), f.notes.end());
	r.judgements = judge(r.installs, r.gpus);
	r.summary = summarize(r.installs, r.gpus, r.judgements);
	r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	return r;
}

} // namespace rdnafix::coverage
