#pragma once
// Validation history: every run x case with the kernel, driver parameters,
// runtime and results, so that a regression across a kernel upgrade is
// visible.  The store (history_store.cpp) is an SQLite database through
// io/sqlite.hpp with a versioned schema (PRAGMA user_version) and forward
// migrations; the regression decision (history.cpp) is pure.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/sqlite.hpp"
#include "history/result.hpp"
#include "software/stack.hpp"

namespace rdnafix::validate {

struct RunInfo {
	std::string started_at; // ISO 8601 UTC, "2026-11-20T23:59:00Z"
	std::string kernel_release;
	std::string device; // "AMD Radeon RX 6700 XT (gfx1031)" / "" when none
	std::string api;    // "HIP" / "CUDA" / ""
	std::string runtime_version;
	std::string driver_version;
	std::string rdnactl_version;
	std::string selection;                                    // "quick", "full", or the --case list
	nlohmann::json amdgpu_params = nlohmann::json::object();  // /sys/module/amdgpu/parameters
	nlohmann::json rdnafix_params = nlohmann::json::object(); // /sys/module/rdnafix/parameters
	// Per AMD GPU from the machine Snapshot: [{"pci_bdf", "gfx_target",
	// "noretry_effective", "rdnafix_noretry_applied"}] (machine_info.hpp RunDevice).
	nlohmann::json devices = nlohmann::json::array();
	// The software stack of the run (stack.hpp: collect_stack).  Runs recorded
	// before schema 5 read back with a stack made of what they recorded
	// (legacy_stack), and StoredRun::stack_legacy set.
	Stack stack;
	// Why the GPU cases did not run ("no_runtime", "probe_failed", ...); empty
	// for a run that ran.  A not-run run may have no case at all.
	std::string not_run;
};

struct StoredCase {
	std::string name;
	Status status = Status::error;
	std::string reason;
	std::optional<double> max_abs, max_rel, rms_range, gflops, gbs, seconds;
	// gflops when the case has it, else gbs: the figure regressions compare.
	std::optional<double> throughput() const { return gflops ? gflops : gbs; }
};

struct StoredRun {
	std::int64_t id = 0;
	RunInfo info;
	std::vector<StoredCase> cases;
	// The stack was not stored (a run recorded before schema 5): info.stack is
	// legacy_stack(info), which knows only the kernel and the parameters.
	bool stack_legacy = false;
};

// Pure: the stack of a run recorded without one: "kernel", the amdgpu/ttm
// parameters that collect_stack records (machine::reported_params(), from the
// recorded amdgpu_params) and "rdnafix.<param>".
Stack legacy_stack(const RunInfo &info);

// Pure.  The latest of `runs` (oldest first) whose stack has key `key`.
std::optional<StoredRun> last_run_on_stack(const std::vector<StoredRun> &runs, const std::string &key);

// not_run: info.not_run is set, or no case ran (every case skipped or none);
// fail: a case failed, crashed, hung or errored; else pass.
enum class RunVerdict { pass, fail, not_run };
RunVerdict verdict(const StoredRun &r);
const char *verdict_name(RunVerdict v); // "pass", "fail", "not_run"

inline constexpr int kHistorySchemaVersion = 5;
// migrations()[i] takes a database from user_version i to i + 1.
const std::vector<std::string> &history_migrations();

// /var/lib/rdnafix/history.db for root; else $XDG_STATE_HOME/rdnafix/history.db,
// else $HOME/.local/state/rdnafix/history.db.  "" when none can be determined.
std::string default_history_path(unsigned uid, const char *xdg_state_home, const char *home);

// The bounds on reading a history database (io::sqlite::ReadLimits): status
// (root, every 5 minutes, a database the validate user owns) reads one run
// and never follows a symbolic link; the listing of a database the caller
// names streams every run.
inline constexpr io::sqlite::ReadLimits kStatusReadLimits{1 << 20, 5000, false};
inline constexpr io::sqlite::ReadLimits kListReadLimits{1 << 20, 300000, true};
// A run with more case results than this is damaged (validate records a few dozen).
inline constexpr int kMaxCasesPerRun = 10000;
// An older schema is read through a migrated in-memory copy of the file: up
// to this size; a larger old file is refused (rdnactl validate upgrades it).
inline constexpr std::int64_t kMaxMigratedCopyBytes = 64ll << 20;

class History {
public:
	// For recording: opens (creating) the database and migrates it to
	// kHistorySchemaVersion.  Throws std::runtime_error (SQLite::Exception is
	// one) naming the file, also for a schema version outside
	// 0..kHistorySchemaVersion (newer than this rdnactl, or damaged), for a
	// path that is not a regular file (a FIFO, a device node: nothing is
	// created beside it) and for an SQLite file that is not a history
	// (schema version 0 with tables of its own: nothing is added to it).
	explicit History(const std::string &path);
	// For listing: opens an existing database read-only as one another user
	// may have written (io::sqlite::open_untrusted with `limits`: a symbolic
	// link, FIFO or device node is refused before SQLite opens it); never
	// creates, migrates or writes the file.  `runs` and `results` must be
	// tables (not views).  An older schema is read through a migrated
	// in-memory copy (at most kMaxMigratedCopyBytes).  Throws
	// std::runtime_error naming the file (missing, not a database, schema
	// version out of range, not a history).
	static History open_read_only(const std::string &path, const io::sqlite::ReadLimits &limits = kListReadLimits);
	// A case name that appears more than once in `cases` is stored once: the
	// first failure among them, else the first result.
	std::int64_t record(const RunInfo &run, const std::vector<CaseResult> &cases);
	std::vector<StoredRun> runs(); // oldest first
	// Each run with its cases, oldest first (started_at, then id), one at a
	// time: memory does not grow with the number of runs.
	void for_each_run(const std::function<void(StoredRun &&)> &f);
	// The newest run (started_at, then id); nullopt for an empty history.
	std::optional<StoredRun> last_run();
	// The run recorded last (highest id) whose stack has key `key`: one
	// indexed lookup (runs_by_stack), whatever the number of runs.  The
	// stored stack_key only finds candidates: the key is recomputed from the
	// stored stack.  Runs recorded before schema 5 (no stack) are matched
	// through legacy_stack.
	std::optional<StoredRun> last_run_on_stack(const std::string &key);
	SQLite::Database &db() { return db_; }
	int schema_version() const { return file_version_; } // of the file, before any migration

private:
	History(SQLite::Database db, int file_version, bool read_only);
	std::optional<StoredRun> read_run(std::int64_t id);
	SQLite::Database db_;
	int file_version_ = 0;
	bool read_only_ = false;
};

// Brings `db` to kHistorySchemaVersion; returns the version it started at.
// A version outside 0..kHistorySchemaVersion is refused (std::runtime_error
// naming the file and the version) before anything is changed.
int migrate_history(SQLite::Database &db);

// What changed between two runs' stacks.  When either run was recorded
// before schema 5 (StoredRun::stack_legacy) only the facts such a run could
// record are compared: "kernel", the amdgpu parameters of legacy_stack and
// "rdnafix.<param>"; so an old database still compares, without every new
// fact showing up as "absent → ...".
std::vector<StackChange> compare_stacks(const StoredRun &before, const StoredRun &after);

// One case of a run against the latest earlier result of that case (not
// skipped) on the same device.
struct CaseDelta {
	std::string case_name;
	std::int64_t from_run = 0; // the run of the earlier result
	std::string from_status, to_status;
	bool same_stack = false;                       // from_run's stack equals this run's (compare_stacks empty)
	bool regression = false;                       // pass -> fail/crash/hang/error, or a throughput drop (below)
	bool throughput = false;                       // passed both times, the figure fell by more than the threshold
	double from_value = 0, to_value = 0, drop = 0; // throughput figures; drop 0.25 = 25 % slower
	std::string unit;                              // "GFLOP/s" / "GB/s" (throughput only)
	// "conv.a pass → fail", "conv.a pass (run 3) → fail" when the earlier
	// result is not from the run compared against, "conv.a 1010 → 900 GFLOP/s
	// (10.9 % lower)" (terminal-safe).
	std::string describe(std::int64_t against) const;
};

// A run against the run before it on the same device: which stack facts
// changed, and which cases changed status (or lost throughput across a stack
// change).
struct RunComparison {
	std::string device;
	std::int64_t run = 0, against = 0;
	std::string started_at, against_started_at;
	std::vector<StackChange> changes; // empty: the same stack
	std::string not_run;              // the run's own reason, when it did not run
	std::vector<CaseDelta> cases;
	bool same_stack() const { return changes.empty(); }
	bool has_regression() const;
	// "run 7 (2026-11-24 10:00, after run 5): kernel 6.12.57 → 6.12.63;
	// everything else equal: conv.a pass → fail" / "run 8 (...): same stack as
	// run 7: conv.a pass → fail" (terminal-safe).
	std::string describe() const;
};

// Pure.  Runs oldest first; per device (RunInfo::device) each run is compared
// with the run before it.  Listed: every run whose stack differs from the one
// before it (the changes are named even when no case changed), and every run
// on the same stack where a case changed status.  A case that passed and now
// fails, crashes, hangs or errors is a regression on any stack; a case that
// passed both times with throughput lower by more than `threshold` is one
// only across a stack change (on one stack it is noise).
std::vector<RunComparison> compare_runs(const std::vector<StoredRun> &runs, double threshold = 0.10);

struct Regression {
	enum class Kind { status, throughput };
	Kind kind;
	std::string device;
	std::string case_name;
	std::string from_kernel, to_kernel; // the two runs' kernel releases
	std::int64_t from_run = 0, to_run = 0;
	std::string from_status, to_status;
	double from_value = 0, to_value = 0; // throughput figures for Kind::throughput
	double drop = 0;                     // fraction, 0.25 = 25 % slower
	std::vector<StackChange> changes;    // from_run's stack -> to_run's; empty: the same stack
	// "conv.a: pass -> fail after kernel 6.1 → 6.12 (runs 2 -> 3)",
	// "conv.a: pass -> fail on the same stack (runs 2 -> 3)" (terminal-safe).
	std::string describe() const;
};

// Pure: the regressions of compare_runs, one per case delta that is one.
std::vector<Regression> find_regressions(const std::vector<StoredRun> &runs, double threshold = 0.10);

// compare_runs and find_regressions one run at a time, for a listing that
// streams: per device it keeps the run before and, per case, the run of the
// case's latest result (not skipped), never every run.
class RunComparer {
public:
	explicit RunComparer(double threshold = 0.10) : threshold_(threshold) {}
	// The next run, oldest first; its comparison when compare_runs lists it.
	std::optional<RunComparison> add(StoredRun run);
	// The regressions of the runs added so far, as find_regressions.
	const std::vector<Regression> &regressions() const { return regressions_; }

private:
	struct Earlier {
		std::shared_ptr<const StoredRun> run;
		std::size_t index = 0; // of the case in run->cases
	};
	struct DeviceState {
		std::shared_ptr<const StoredRun> prev;
		std::map<std::string, Earlier> latest; // case -> its latest result that was not skipped
	};
	static Regression regression(const CaseDelta &d, const StoredRun &from, const StoredRun &to);
	double threshold_;
	std::map<std::string, DeviceState> devices_;
	std::vector<Regression> regressions_;
};

} // namespace rdnafix::validate
