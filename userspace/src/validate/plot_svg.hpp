#pragma once
// `rdnactl history --plot FILE.svg`: throughput per case across the recorded
// runs, failures marked, as plain SVG 1.1 text.  plot_svg() is pure (runs in,
// text out); write_history_plot() reads the store and writes the file
// atomically (io/atomic_file.hpp).  Case names and run labels come from the
// history database, i.e. from whatever wrote it: they are XML-escaped, and
// text that is not valid UTF-8 or not allowed in XML is replaced.
#include <string>
#include <string_view>
#include <vector>

#include "history/history.hpp"

namespace rdnafix::validate {

// The SVG document.  One panel per case (in the order cases first appear),
// each with its own y scale from 0 to its largest figure; x: the runs, oldest
// first, labelled "#<id>" and the kernel release.  Per run and case:
//   <circle class="point" data-run="ID">  throughput (StoredCase::throughput())
//   <g class="failure" data-run="ID">     a red cross: the case failed
//                                         (is_failure: fail, crash, hang, error)
// A passing case without a figure and a skipped case draw nothing.  Where the
// stack differs from the run before (compare_stacks: kernel, parameters,
// runtime, PyTorch, environment, GPUs), a dashed <line class="change"> crosses
// every panel, labelled with the first change's name (<text
// class="change-label">) and titled with all of them.  No runs: a document
// that says so.
std::string plot_svg(const std::vector<StoredRun> &runs);

// Text for an XML attribute or element: & < > " ' escaped; bytes that are not
// UTF-8 and code points XML 1.0 forbids (C0 controls but tab, LF, CR) become
// U+FFFD.
std::string xml_text(std::string_view s);

// Read the history at `db_path` (read-only; a missing file is an empty
// history) and write plot_svg() to `out_path` atomically (temp file in the same
// directory, then rename).  Returns 0, or 2 after one line on stderr naming the
// file and the reason (the directory is missing or not writable, the database
// cannot be read).  On success one line on stderr: "wrote FILE (N runs, M cases)".
int write_history_plot(const std::string &db_path, const std::string &out_path);

} // namespace rdnafix::validate
