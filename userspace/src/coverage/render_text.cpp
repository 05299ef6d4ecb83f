// `rdnactl coverage`: the report as text.
#include "coverage/render.hpp"

#include "software/libdirs.hpp"

#include "core/text_safe.hpp"

#include <fmt/format.h>

namespace rdnafix::coverage {

namespace {

std::string targets_text(const Library &l)
{
	if (l.targets.empty()) {
		if (l.kind != LibraryKind::fatbin)
			return l.problems.empty() ? "no per-target files" : "unreadable";
		if (l.file && l.file->kind == FileKind::over_budget)
			return "not read: decompression budget";
		if (l.file && (l.file->kind == FileKind::unreadable || any_bundle_unreadable(*l.file)))
			return "unreadable";
		return l.problems.empty() ? "no device code" : "no usable code object";
	}
	std::string s;
	for (const auto &t : l.targets)
		s += (s.empty() ? "" : " ") + spelled(t);
	return s;
}

core::Tone tone_of(const DeviceVerdict &v)
{
	switch (v.verdict) {
	case Verdict::native:
	case Verdict::generic:
		return core::Tone::ok;
	case Verdict::override_only:
		return v.override_safety == rules::OverrideVerdict::isa_safe ? core::Tone::warn : core::Tone::error;
	case Verdict::missing:
		return core::Tone::error;
	case Verdict::no_code:
		return core::Tone::dim;
	}
	return core::Tone::error;
}

} // namespace

std::string render_text(const Report &r, const std::string &root, const TextOptions &t)
{
	const bool colour = t.style.colour;
	auto head = [&](const std::string &s) { return core::paint(s, core::Tone::heading, colour); };
	bool hidden = false; // something left for --verbose
	std::string o;
	// Paths, versions and bundle ids come from the scanned files: escaped.
	auto line = [&](const std::string &l) { o += core::terminal_safe(l) + "\n"; };
	line(fmt::format("rdnactl coverage — root {}", root));
	// One line per GPU x installation first when there are several.
	if (r.summary.size() > 1) {
		line("");
		o += head("Verdicts") + "\n";
		for (const auto &s : r.summary)
			o += core::paint(core::terminal_safe(
						 fmt::format("  {}  {}: {}", gpu_label(s.verdict.gfx, s.verdict.device),
							     r.installs[s.install].label, verdict_phrase(s.verdict))),
					 tone_of(s.verdict), colour) +
			     "\n";
	}
	line("");
	o += head("GPUs") + "\n";
	if (r.gpus.empty())
		line("  none (no AMD GPU with a known gfx target; name one with --gfx)");
	for (const auto &g : r.gpus)
		line(fmt::format("  {:<28} XNACK {}{}", gpu_label(g.gfx, g.device), g.xnack_on ? "on" : "off",
				 g.note.empty() ? "" : " (" + g.note + ")"));
	for (std::size_t i = 0; i < r.installs.size(); ++i) {
		const Install &in = r.installs[i];
		line("");
		o += head(core::terminal_safe(in.label + (in.runtime_version.empty() || in.runtime_version == in.version
								  ? ""
								  : fmt::format(" (HIP {})", in.runtime_version)))) +
		     "\n";
		line(fmt::format("  {:<24} /{}  (via {})", "where", in.path, in.via));
		for (const auto &l : in.libraries) {
			line(fmt::format("  {:<24} {}{}", l.name, targets_text(l),
					 l.kind == LibraryKind::miopen_db ? "  (tuning data: not counted)" : ""));
			if (l.path.rfind(in.path, 0) != 0)
				line(fmt::format("  {:<24} /{}", "", l.path));
			for (const auto &p : l.problems)
				line(fmt::format("  {:<24} problem: {}", "", p));
		}
		for (const auto &s : r.summary) {
			if (s.install != i)
				continue;
			o += core::paint(core::terminal_safe(fmt::format("  => {}: {}",
									 gpu_label(s.verdict.gfx, s.verdict.device),
									 verdict_phrase(s.verdict))),
					 tone_of(s.verdict), colour) +
			     "\n";
			for (const auto &j : r.judgements) {
				if (j.install != i)
					continue;
				for (const auto &d : j.devices)
					if (d.device == s.verdict.device && d.gfx == s.verdict.gfx &&
					    d.verdict != Verdict::native && d.verdict != Verdict::no_code &&
					    in.libraries[j.library].kind != LibraryKind::miopen_db)
						line(fmt::format("       {}: {}", in.libraries[j.library].name,
								 d.reason));
			}
			if (s.verdict.verdict == Verdict::override_only && s.verdict.override_safety) {
				if (t.verbose)
					line(fmt::format("       {}: {}", rules::to_string(*s.verdict.override_safety),
							 s.verdict.override_reason));
				else
					hidden = true;
			}
		}
	}
	if (r.installs.empty()) {
		line("");
		if (t.verbose) {
			line("No installation with GPU code found (PyTorch, ROCm, llama.cpp/ollama); looked in:");
			for (const auto &s : r.searched)
				line("  /" + s);
		} else {
			line("No installation with GPU code found (PyTorch, ROCm, llama.cpp/ollama).");
			line(fmt::format("Searched {} place(s) (--verbose lists them).", r.searched.size()));
		}
	}
	if (!r.notes.empty()) {
		line("");
		o += head("Notes") + "\n";
		for (const auto &n : r.notes)
			line("  " + n);
	}
	if (hidden) {
		line("");
		line("Why an override is safe or unsafe, with sources: rdnactl coverage --verbose");
	}
	line("");
	int bad = 0;
	for (const auto &s : r.summary)
		bad += s.verdict.verdict != Verdict::native && s.verdict.verdict != Verdict::generic;
	if (r.gpus.empty())
		line("Verdict: no GPU to judge");
	else if (r.summary.empty())
		line("Verdict: nothing with GPU code to judge");
	else if (bad == 0)
		line("Verdict: every GPU has native or generic code in every installation");
	else
		line(fmt::format("Verdict: {} GPU x installation pair{} without native or generic code", bad,
				 bad == 1 ? "" : "s"));
	return core::wrap_text(o, t.style.width, 2);
}

} // namespace rdnafix::coverage
