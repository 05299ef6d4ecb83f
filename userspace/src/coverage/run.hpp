#pragma once
// `rdnactl coverage` as a function: options in, exit code out (0 every GPU
// has native or generic code in every installation that carries code, 1 some
// GPU runs only with an override or not at all, 2 could not run).  The
// command line that fills the options lives in app/cmd_coverage.cpp.
#include "software/scan.hpp"

#include "machine/collect.hpp"

#include "core/term_style.hpp"

namespace rdnafix::coverage {

struct CoverageOptions {
	machine::CollectOptions machine;
	ScanOptions scan;
	bool json = false;
	bool stats = false;    // scan time and bytes read on stderr
	bool verbose = false;  // the places searched, why an override is (un)safe
	core::TextStyle style; // colour and wrap width of the text (not JSON)
};
int run_coverage(const CoverageOptions &opts);

} // namespace rdnafix::coverage
