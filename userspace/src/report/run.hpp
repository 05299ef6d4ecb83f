#pragma once
// `rdnactl report` as a function: options in, exit code out (0 written, 2
// could not run, 3 failed while writing the archive).  The command line that
// fills the options lives in app/; `status --json` comes from app/ too (a verb
// folder never includes another), as a function of the collect options.
#include "machine/collect.hpp"

#include <functional>
#include <string>

namespace rdnafix::report {

struct ReportOptions {
	machine::CollectOptions machine; // --root, --env, --user, --pid
	std::string output;              // --output FILE; "" = rdnafix-report-<UTC time>.tar.gz here
	bool anonymize = true;           // --no-anonymize: false
	bool force = false;              // --force: replace an existing FILE
};

// `rdnactl status --json` of the machine `opts` describes.
using StatusJson = std::function<std::string(const machine::CollectOptions &)>;

int run_report(const ReportOptions &opts, const StatusJson &status_json);

} // namespace rdnafix::report
