#pragma once
// `rdnactl explain`: the model.  A log (text) is read into lines
// (read_log.cpp), matched against ONE catalogue of signatures
// (signatures.cpp, stable ids RDNA-LOG-NNN), each match judged against the
// machine::Snapshot and an optional coverage::Report (judge.cpp, pure), and
// rendered (render_text.cpp, render_json.cpp).  Enums become words only in
// the renderers and in signatures.cpp (the catalogue's own texts).
#include "core/amdgpu_fault.hpp"

#include "core/remedy.hpp"
#include "core/term_style.hpp"

#include "knowledge/decode.hpp"
#include "knowledge/matcher.hpp"

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rdnafix::coverage {
struct Report;
}
namespace rdnafix::machine {
struct Snapshot;
}

namespace rdnafix::explain {

// A signature is an entry of the knowledge base (knowledge/model.hpp,
// docs/knowledge.md); a match names it by its index in Base::entries.
using Sig = std::size_t;
using knowledge::Severity;

// ---- the log ---------------------------------------------------------------

// hip: the AMD_LOG_LEVEL prefix of HIP / CLR (":1:hip_code_object.cpp :507 : 1234 us: 42: [tid:0x7f] ").
enum class LineFormat { plain, dmesg, journal, kmsg, python, hip };

struct LogLine {
	std::size_t number = 0; // 1-based line number in the input
	std::string text;       // without timestamp / journal / kmsg prefix, control bytes replaced
	LineFormat format = LineFormat::plain;
};

struct Log {
	std::vector<LogLine> lines;
	std::size_t bytes = 0;
	std::vector<std::string> problems; // "line 12: 104857600 bytes, cut at 65536", "binary data: 3 NUL bytes"
	bool binary = false;               // mostly not text
};

// Where the matcher takes the log's lines from, one at a time.
class LineSource {
public:
	virtual ~LineSource() = default;
	virtual std::optional<LogLine> next() = 0; // nullopt at the end
};

// The reader (read_log.cpp) over input that arrives in pieces: memory holds
// one piece and one line, whatever the length of the log.  Blank lines are
// skipped (their numbers are counted); lines longer than 64 KiB are cut.
// The optional prefilter sees each line as read (without its line end, cut
// at 64 KiB, before any prefix is removed); a line it rejects is counted but
// never becomes a LogLine (no copy, no prefix work).
class LogReader : public LineSource {
public:
	using Pieces = std::function<std::string_view()>;        // the next piece of the input, empty at its end
	using Candidate = std::function<bool(std::string_view)>; // false: the line cannot match, skip it
	explicit LogReader(Pieces pieces, Candidate candidate = {})
	    : pieces_(std::move(pieces)), candidate_(std::move(candidate))
	{
	}
	std::optional<LogLine> next() override;
	// What was read, once next() has returned nullopt: bytes, problems,
	// binary (Log::lines stays empty; lines() is their number).
	Log summary() const;
	// The lines read that are not blank (candidates or not).
	std::size_t lines() const { return lines_; }

private:
	bool take_line(std::string_view *raw, std::size_t *length);
	void probe(std::string_view piece);
	Pieces pieces_;
	Candidate candidate_;
	std::string_view piece_;
	std::string partial_;         // a line split over pieces (at most 64 KiB + 1 byte of it)
	std::size_t partial_len_ = 0; // its whole length
	bool partial_cr_ = false;     // it ends in '\r' so far
	bool end_ = false;
	std::size_t bytes_ = 0, number_ = 0, lines_ = 0, cut_ = 0;
	std::size_t probed_ = 0, nul_ = 0, controls_ = 0; // the first 64 KiB: is it text?
	std::vector<std::string> cut_notes_;
};

// ---- matches ---------------------------------------------------------------

// hipErrorNoBinaryForGpu's lists (HIP's hip_code_object.cpp prints them).
struct NoBinaryDecode {
	std::vector<std::string> devices;   // "gfx1031" (with features: "gfx90a:sramecc+:xnack-")
	std::vector<std::string> bundled;   // "gfx1030", "gfx900:xnack-" (the bundle's targets)
	std::vector<std::string> missing;   // devices without a matching code object
	std::vector<std::string> libraries; // the library whose bundle was read, when printed
};

struct Match {
	Sig sig = 0;
	const knowledge::Entry *entry = nullptr;   // the knowledge base's entry (sig)
	knowledge::Captured captures;              // named captures of its lines
	std::size_t first_line = 0, last_line = 0; // input line numbers of the block
	std::vector<std::string> excerpt;          // the lines (at most 12)
	std::size_t count = 1;                     // identical repeats folded into this one
	// facts decoded from the lines (as present)
	std::string device; // PCI address "0000:0b:00.0", or "node-1"
	std::optional<unsigned> node;
	std::optional<std::uint64_t> address;
	std::string detail; // ring name ("gfx_0.0.0"), firmware file, MES message, reason text
	std::optional<core::amdgpu_fault::VmFault> fault;
	std::optional<NoBinaryDecode> nobinary;
};

// ---- judgement -------------------------------------------------------------

struct Explanation {
	Match match;
	std::vector<std::string> decoded; // decoded facts, one line each
	std::vector<std::string> here;    // the likely cause ON THIS MACHINE, one line each (evidence)
	std::vector<std::string> fix;     // the exact fix, one step per line
	std::vector<core::Remedy> remedies;
	// A VM fault's status word decoded with the faulting GPU's client table
	// (the mmhub tables differ per GPU); the text and the JSON both show it.
	std::optional<core::amdgpu_fault::FaultStatus> fault_status;
	std::vector<knowledge::Fact> facts; // the captures decoded
	std::vector<std::string> causes;    // the entry's general causes (when = "always")
};

// Matches of one signature left out of a long list: the first and the last
// kKeep of each signature are explained, the rest only counted.
struct Omitted {
	Sig sig = 0;
	const knowledge::Entry *entry = nullptr;
	std::size_t matches = 0;     // distinct matches not explained
	std::size_t occurrences = 0; // with their repeats
};
constexpr std::size_t kKeep = 10;

struct Matches {
	std::vector<Match> matches; // in the order of their first line
	std::vector<Omitted> omitted;
	std::size_t unfolded = 0; // distinct matches beyond the fold's memory: their repeats were counted as distinct
	std::vector<std::pair<std::size_t, std::string>>
		unrecognised; // lines that look like errors, matched by none (first 8)
	std::size_t unrecognised_count = 0;
};

struct Report {
	std::string input; // "stdin", the file path
	std::size_t lines = 0, bytes = 0;
	std::vector<std::string> problems; // from the reader
	std::vector<std::string> context;  // machine context used ("environment of pid 1234", "coverage not run: ...")
	std::vector<Explanation> explanations;
	std::vector<Omitted> omitted; // matches counted, not explained (beyond kKeep per signature)
	std::vector<std::pair<std::size_t, std::string>>
		unrecognised; // when nothing matched: lines that look like errors
	std::size_t unrecognised_count = 0;
	std::size_t errors() const; // distinct matches that are not harmless (explained or omitted)
	std::size_t harmless() const;
};

// Pure steps.
Log read_log(std::string_view text); // the whole text through LogReader, every line kept
// `prefiltered`: the source gives only lines km.candidate() accepted (a
// LogReader with the matcher's prefilter), so they are not tested again.
Matches match_lines(LineSource &lines, const knowledge::Matcher &km, std::size_t keep = kKeep,
		    bool prefiltered = false);
std::vector<Match> match_log(const Log &log, const knowledge::Matcher &km); // match_lines over log.lines
Report judge(const std::vector<Match> &matches, const machine::Snapshot &snap, const coverage::Report *coverage,
	     const knowledge::Base &base);
// Each entry's example through the reader and the matcher: problems for an
// entry its own example does not show (file:line of the entry).
std::vector<knowledge::Problem> check_examples(const knowledge::Base &base, const knowledge::Matcher &km);
// The words the built-in block readers need on continuation lines (VM fault
// blocks, the Devices / Bundled Code Objects lists): the prefilter's extras.
std::vector<std::string> block_literals();

// Renderers.  Text: one line per match first (when there are several), then
// each match in detail; its sources only with `verbose`; coloured and
// wrapped as `style` says (core/term_style.hpp).
struct TextOptions {
	bool verbose = false;
	core::TextStyle style;
};
std::string render_text(const Report &r, const TextOptions &t = {});
std::string render_json(const Report &r);
std::string render_entry_text(const knowledge::Entry &s);
std::string render_entry_json(const knowledge::Entry &s);
// `explain --list --json`: {schema_version, rdnactl_version, count, entries[]}.
std::string render_catalogue_json(const std::vector<knowledge::Entry> &entries);

} // namespace rdnafix::explain
