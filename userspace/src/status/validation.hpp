#pragma once
// "Last validation on this stack": the newest recorded `rdnactl validate` run
// whose stack (validate/stack.hpp) equals the stack of the machine status
// describes, from the system history database and the caller's own one.
// The model is plain values; read_validation.cpp fills it (it reads the
// databases), the renderers turn its enums into words.
#include "machine/snapshot.hpp"
#include "history/result.hpp"
#include "software/picture.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rdnafix::status {

enum class ValidationResult {
	never,      // no database holds a run on this stack (or no database exists)
	pass,       // the run's cases all passed (skips allowed)
	fail,       // a case failed, crashed, hung or errored
	not_run,    // recorded without running its cases (no GPU runtime, ...): `not_run` says why
	unreadable, // no run found, and a database could not be read (`unreadable` says why)
};

// One case of the run, as stored.
struct ValidationCase {
	std::string name;
	validate::Status status = validate::Status::error;
	std::optional<double> gflops, gbs, seconds;
};

struct LastValidation {
	ValidationResult result = ValidationResult::never;
	std::string stack_key;                     // of this machine ("" when it could not be computed)
	std::string database;                      // the database the run is in (HistorySource::shown)
	std::int64_t run = 0;                      // its run id there
	std::string started_at;                    // ISO 8601 UTC as stored
	std::optional<std::int64_t> started_epoch; // the same in seconds since 1970 (nullopt: unparsable)
	std::string device;                        // as recorded
	std::string not_run;                       // the reason a not-run run gave
	std::vector<ValidationCase> cases;
	std::vector<std::string> read;               // the databases read (shown paths), in order
	std::vector<std::string> missing;            // the databases that do not exist
	std::vector<machine::Unreadable> unreadable; // databases that exist but could not be read
};

// One history database to read: a root-relative path below a root (symlinks
// are resolved inside the root, io::RootFs) and the path reports show
// ("/var/lib/rdnafix/history.db" under --root, not <root>/var/...).
struct HistorySource {
	std::string root; // "/" or the --root directory
	std::string rel;  // "var/lib/rdnafix/history.db"
	std::string shown;
};

// "2026-11-20T23:59:00Z" -> seconds since 1970; nullopt for anything else.
std::optional<std::int64_t> parse_utc_timestamp(const std::string &iso);

// The databases status reads: the system databases below `root`
// (var/lib/rdnafix/history.db, root's default, and
// var/lib/rdnafix/validate/history.db, rdnafix-validate.service's) and, on
// the live machine (root "/"),
// the caller's own default history (validate::default_history_path of the
// process's uid, XDG_STATE_HOME, HOME) when it is another file.  Under
// --root only the root's system database is read: the caller's home belongs
// to this machine, not to the tree.
std::vector<HistorySource> validation_databases(const std::string &root);

// Reads `databases` read-only and picks the newest run on the snapshot's
// stack.  A missing database is not an error (never); one that cannot be
// read (not a database, newer schema, permissions) is an unreadable item
// with the reason.  Never throws.
LastValidation read_last_validation(const machine::Snapshot &snap, const std::vector<HistorySource> &databases);
// The same with the stack of the run's software picture (software::collect).
LastValidation read_last_validation(const machine::Snapshot &snap, const software::Picture &software,
				    const std::vector<HistorySource> &databases);

} // namespace rdnafix::status
