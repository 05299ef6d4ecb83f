// "Last validation on this stack": which history databases status reads, and
// the newest run in them on the stack of the machine it describes.  Reads
// the databases read-only as files another user may have written
// (validate::History::open_read_only with kStatusReadLimits) and only the one
// run it reports (History::last_run_on_stack); the stack is
// validate::collect_stack, the one that `validate` records with a run.
#include "status/validation.hpp"

#include "io/process.hpp"
#include "io/rootfs.hpp"
#include "history/history.hpp"
#include "software/stack.hpp"

#include <ctime>
#include <exception>
#include <unistd.h>

namespace rdnafix::status {

namespace {

// Root's default history (`sudo rdnactl validate`: validate::default_history_path
// for uid 0) and the one rdnafix-validate.service records as its user.
inline constexpr const char *kSystemHistories[] = {"var/lib/rdnafix/history.db", "var/lib/rdnafix/validate/history.db"};

std::optional<std::string> env(const char *name)
{
	return io::env_value(name);
}

ValidationResult result_of(validate::RunVerdict v)
{
	switch (v) {
	case validate::RunVerdict::pass:
		return ValidationResult::pass;
	case validate::RunVerdict::fail:
		return ValidationResult::fail;
	case validate::RunVerdict::not_run:
		return ValidationResult::not_run;
	}
	return ValidationResult::not_run;
}

void take_run(LastValidation &out, const validate::StoredRun &r, const std::string &shown)
{
	out.result = result_of(validate::verdict(r));
	out.database = shown;
	out.run = r.id;
	out.started_at = r.info.started_at;
	out.started_epoch = parse_utc_timestamp(r.info.started_at);
	out.device = r.info.device;
	out.not_run = r.info.not_run;
	out.cases.clear();
	for (const auto &c : r.cases)
		out.cases.push_back({c.name, c.status, c.gflops, c.gbs, c.seconds});
}

} // namespace

std::optional<std::int64_t> parse_utc_timestamp(const std::string &iso)
{
	// Exactly YYYY-MM-DDTHH:MM:SSZ, as validate records it.
	if (iso.size() != 20 || iso[4] != '-' || iso[7] != '-' || iso[10] != 'T' || iso[13] != ':' || iso[16] != ':' ||
	    iso[19] != 'Z')
		return std::nullopt;
	for (size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18})
		if (iso[i] < '0' || iso[i] > '9')
			return std::nullopt;
	auto num = [&](size_t at, size_t n) { return std::stoi(iso.substr(at, n)); };
	std::tm tm{};
	tm.tm_year = num(0, 4) - 1900;
	tm.tm_mon = num(5, 2) - 1;
	tm.tm_mday = num(8, 2);
	tm.tm_hour = num(11, 2);
	tm.tm_min = num(14, 2);
	tm.tm_sec = num(17, 2);
	if (tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
		return std::nullopt;
	return static_cast<std::int64_t>(timegm(&tm));
}

std::vector<HistorySource> validation_databases(const std::string &root)
{
	std::vector<HistorySource> out;
	for (const char *rel : kSystemHistories)
		out.push_back({root, rel, std::string("/") + rel});
	if (root != "/")
		return out;
	const std::string own = validate::default_history_path(
		io::process_identity().euid, env("XDG_STATE_HOME") ? env("XDG_STATE_HOME")->c_str() : nullptr,
		env("HOME") ? env("HOME")->c_str() : nullptr);
	const std::string abs = own.empty() ? "" : io::absolute_path(own);
	bool known = abs.empty();
	for (const auto &x : out)
		known = known || x.shown == abs;
	if (!known)
		out.push_back({"/", abs.substr(1), abs});
	return out;
}

LastValidation read_last_validation(const machine::Snapshot &snap, const std::vector<HistorySource> &databases)
{
	software::PictureOptions want;
	want.coverage = false;
	want.libload = false;
	return read_last_validation(snap, software::collect(snap, want), databases);
}

LastValidation read_last_validation(const machine::Snapshot &snap, const software::Picture &software,
				    const std::vector<HistorySource> &databases)
{
	LastValidation out;
	if (!software.stack) {
		out.result = ValidationResult::unreadable;
		out.unreadable.push_back({"stack", snap.root,
					  software.stack_error.empty() ? "this machine's stack was not collected"
								       : software.stack_error});
		return out;
	}
	out.stack_key = software.stack->key();
	std::string newest; // started_at of the run taken
	for (const auto &src : databases) {
		// The directory is resolved inside the root; the file itself is
		// opened by validate::History with O_NOFOLLOW and must be a regular
		// file (its owner may be the unprivileged validate user).
		const auto slash = src.rel.rfind('/');
		const std::string dir_rel = slash == std::string::npos ? "" : src.rel.substr(0, slash);
		const std::string name = slash == std::string::npos ? src.rel : src.rel.substr(slash + 1);
		io::RootFs fs(src.root);
		auto dir = fs.host_path(dir_rel);
		if (!dir) {
			if (dir.error().kind == io::FsErrorKind::not_found)
				out.missing.push_back(src.shown);
			else
				out.unreadable.push_back({"history", src.shown, dir.error().reason()});
			continue;
		}
		try {
			auto db = validate::History::open_read_only(*dir + (dir->ends_with('/') ? "" : "/") + name,
								    validate::kStatusReadLimits);
			auto last = db.last_run_on_stack(out.stack_key);
			out.read.push_back(src.shown);
			if (last && (out.run == 0 || last->info.started_at > newest)) {
				newest = last->info.started_at;
				take_run(out, *last, src.shown);
			}
		} catch (const io::sqlite::NotADatabaseFile &e) {
			if (e.missing())
				out.missing.push_back(src.shown);
			else
				out.unreadable.push_back({"history", src.shown, "unreadable: " + e.detail()});
		} catch (const SQLite::Exception &e) { // the budget, the length limit, a damaged file
			out.unreadable.push_back(
				{"history", src.shown,
				 "unreadable: " + io::sqlite::describe(e, validate::kStatusReadLimits)});
		} catch (const std::exception &e) {
			out.unreadable.push_back({"history", src.shown, std::string("unreadable: ") + e.what()});
		}
	}
	if (out.run == 0 && out.read.empty() && !out.unreadable.empty())
		out.result = ValidationResult::unreadable;
	return out;
}

} // namespace rdnafix::status
