#pragma once
// The knowledge base: signatures of failures as data (docs/knowledge.md).
// Text entries (TOML) are parsed and validated here (parse.cpp), compiled
// into one matcher (matcher.cpp: RE2, a literal prefilter, RE2::Set), and
// the captures of a match decoded with the base's tables (decode.cpp).
// Pure: texts in, values out; the overlay directories are read by io/.
#include "core/env_vars.hpp"
#include "core/remedy.hpp"
#include "knowledge/known_bad.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace rdnafix::knowledge {

enum class Kind { runtime, library, framework, application, kernel };
enum class Severity { harmless, warning, error };
enum class Decoder { text, integer, hex, bytes, gfx, gfx_list, hip_error, hsa_status, errno_name, path, library };
enum class Condition {
	always,
	amd_gpu,
	no_amd_gpu,
	apu,
	dgpu,
	gfx101x,
	gfx103x,
	gfx10, // RDNA1 or RDNA2: the judge appends what the evidence points at (MTYPE line)
	gfx11,
	gfx115x,
	gfx12,
	override_set,
	override_unsafe,
	visible_devices_set,
	kfd_missing,
	kfd_denied,
	noretry_0,
	multi_gpu,
	rdnafix_loaded, // the rdnafix module is loaded
	rdnafix_mtype,  // rdnafix's mtype_sysmem or mtype_vram is set to other than keep
};
// A built-in judgement that adds what only this machine can say.
enum class Judge { none, code_object, no_binary, override_verdicts, kfd_fault, vm_fault, kernel_event, oom, access };

struct Cause {
	Condition when = Condition::always;
	std::string text;
};

// A typed change, offered when its condition holds on this machine.
struct Remedy {
	Condition when = Condition::always;
	core::Remedy change;
};

struct Capture {
	std::string name;
	Decoder decoder = Decoder::text;
};

// Where an entry was read: "built-in hip.toml", "/etc/rdnafix/knowledge.d/x.toml".
struct Origin {
	std::string file;
	std::size_t line = 0;
};

struct Entry {
	std::string id; // RDNA-LOG-NNN
	Kind kind = Kind::runtime;
	Severity severity = Severity::error;
	std::string title;
	std::vector<std::string> patterns; // RE2 syntax, one line each
	std::vector<std::string> follow;   // continuation lines
	std::vector<std::string> exclude;  // `not`: a line that matches one of these is not this entry
	unsigned follow_lines = 8;
	bool group = false; // consecutive matches within a few lines are one block
	std::vector<Capture> captures;
	std::string meaning, fix;
	std::vector<Cause> causes;
	std::vector<Remedy> remedies;
	std::vector<std::string> sources;
	Judge judge = Judge::none;
	std::string example;
	Origin origin;
	const Capture *capture(const std::string &name) const;
};

struct Code {
	std::string name, text;
};

// Decoder tables (tables.toml).
struct Tables {
	std::map<long long, Code> hip_error;
	std::map<long long, Code> hsa_status;
	std::map<long long, Code> errno_codes;
	std::map<std::string, long long> hip_names, hsa_names; // name (and aliases) -> code
};

struct Problem {
	std::string file;
	std::size_t line = 0; // 0: the file as a whole
	std::string what;
};
std::string to_text(const Problem &p); // "hip.toml:12: what"

struct Base {
	std::vector<Entry> entries; // in id order
	Tables tables;
	std::vector<KnownBad> known_bad; // known-bad.toml, in file order (parse_known_bad.cpp)
	core::VarTable variables;        // [[variable]] rows (parse_variables.cpp), in file order
	const Entry *find(const std::string &id) const;
};

// One knowledge file's text.  `name` is what problems cite ("hip.toml",
// "/etc/rdnafix/knowledge.d/local.toml").
struct SourceText {
	std::string name;
	std::string text;
};

// Parses files in order into `base`: an entry whose id is already there
// replaces it (its origin says which file won), tables add and replace
// codes.  Every problem (syntax, a field of the wrong type, a value outside
// the closed sets, a pattern RE2 refuses or without a required literal, a
// capture without a decoder, a {placeholder} that is no capture, a
// duplicate id in one file) is appended to `problems` with file:line; a
// broken entry is left out, the rest of the file is kept.
void parse(const std::vector<SourceText> &files, Base *base, std::vector<Problem> *problems);

// Closed-set words (the data format's; parse.cpp and the renderers share them).
std::string_view word(Kind k);
std::string_view word(Severity s);
std::string_view word(Decoder d);
std::string_view word(Condition c);
std::string_view word(Judge j);

} // namespace rdnafix::knowledge
