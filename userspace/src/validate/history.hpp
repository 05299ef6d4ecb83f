#pragma once
// Validation history: every run x case with the kernel, driver parameters,
// runtime and results, so that a regression across a kernel upgrade is
// visible.  The store (history_store.cpp) is an SQLite database through
// io/sqlite.hpp with a versioned schema (PRAGMA user_version) and forward
// migrations; the regression decision (history.cpp) is pure.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/sqlite.hpp"
#include "result.hpp"

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
};

inline constexpr int kHistorySchemaVersion = 4;
// migrations()[i] takes a database from user_version i to i + 1.
const std::vector<std::string> &history_migrations();

// /var/lib/rdnafix/history.db for root; else $XDG_STATE_HOME/rdnafix/history.db,
// else $HOME/.local/state/rdnafix/history.db.  "" when none can be determined.
std::string default_history_path(unsigned uid, const char *xdg_state_home, const char *home);

class History {
public:
	// For recording: opens (creating) the database and migrates it to
	// kHistorySchemaVersion.  Throws std::runtime_error (SQLite::Exception is
	// one) naming the file, also for a schema version outside
	// 0..kHistorySchemaVersion (newer than this rdnactl, or damaged).
	explicit History(const std::string &path);
	// For listing: opens an existing database read-only; never creates,
	// migrates or writes the file.  An older schema is read through a migrated
	// in-memory copy.  Throws std::runtime_error naming the file (missing, not
	// a database, schema version out of range).
	static History open_read_only(const std::string &path);
	// A case name that appears more than once in `cases` is stored once: the
	// first failure among them, else the first result.
	std::int64_t record(const RunInfo &run, const std::vector<CaseResult> &cases);
	std::vector<StoredRun> runs(); // oldest first
	SQLite::Database &db() { return db_; }
	int schema_version() const { return file_version_; } // of the file, before any migration

private:
	History(SQLite::Database db, int file_version, bool read_only);
	SQLite::Database db_;
	int file_version_ = 0;
	bool read_only_ = false;
};

// Brings `db` to kHistorySchemaVersion; returns the version it started at.
// A version outside 0..kHistorySchemaVersion is refused (std::runtime_error
// naming the file and the version) before anything is changed.
int migrate_history(SQLite::Database &db);

struct Regression {
	enum class Kind { status, throughput };
	Kind kind;
	std::string device;
	std::string case_name;
	std::string from_kernel, to_kernel;
	std::int64_t from_run = 0, to_run = 0;
	std::string from_status, to_status;
	double from_value = 0, to_value = 0; // throughput figures for Kind::throughput
	double drop = 0;                     // fraction, 0.25 = 25 % slower
	std::string describe() const;
};

// Pure.  Runs oldest first.  Per device, each kernel release is represented by
// the latest result of each case under that kernel; releases are ordered by their
// latest run, and each release is compared with the one before it: a case that
// passed and now fails/crashes/hangs/errors is a regression, and so is a case
// that passed both times with throughput lower by more than `threshold`.
std::vector<Regression> find_regressions(const std::vector<StoredRun> &runs, double threshold = 0.10);

} // namespace rdnafix::validate
