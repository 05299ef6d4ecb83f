// The knowledge base of this run: the built-in files, then the overlay
// directories (io/knowledge_dirs), parsed into one base; and the check of
// each entry against its own example.  The built-in files are linked by
// the program (rdnafix_knowledge_builtin), not by this library.
#include "explain/knowledge_load.hpp"

#include "io/knowledge_dirs.hpp"

#include <fmt/format.h>

namespace rdnafix::explain {

std::vector<knowledge::Problem> check_examples(const knowledge::Base &base, const knowledge::Matcher &km)
{
	std::vector<knowledge::Problem> out;
	for (std::size_t i = 0; i < base.entries.size(); ++i) {
		const auto &e = base.entries[i];
		const auto found = match_log(read_log(e.example), km);
		bool hit = false;
		for (const auto &m : found)
			hit = hit || m.sig == i;
		if (!hit) {
			std::string shown;
			for (const auto &m : found)
				shown += (shown.empty() ? "" : ", ") + (m.entry ? m.entry->id : std::string("?"));
			out.push_back({e.origin.file, e.origin.line,
				       fmt::format("{}: its example is not recognised as {} ({})", e.id, e.id,
						   shown.empty() ? "nothing matched" : "matched instead: " + shown)});
		}
	}
	return out;
}

std::unique_ptr<Loaded> load_knowledge(const std::vector<knowledge::SourceText> &builtin, bool overlays)
{
	auto owned = std::make_unique<Loaded>();
	Loaded &l = *owned;
	std::vector<knowledge::Problem> problems;
	knowledge::parse(builtin, &l.base, &problems);
	for (const auto &p : problems)
		l.notes.push_back("built-in knowledge: " + knowledge::to_text(p));
	if (overlays) {
		std::vector<std::string> io_problems;
		std::vector<knowledge::SourceText> files;
		for (auto &f : io::read_knowledge_dirs(&io_problems))
			files.push_back({std::move(f.path), std::move(f.text)});
		problems.clear();
		knowledge::parse(files, &l.base, &problems);
		for (const auto &p : io_problems)
			l.notes.push_back("knowledge: " + p);
		for (const auto &p : problems)
			l.notes.push_back("knowledge: " + knowledge::to_text(p) + " (entry not used)");
		for (const auto &f : files)
			l.overlay_files.push_back(f.name);
	}
	l.matcher = std::make_unique<knowledge::Matcher>(l.base, block_literals());
	return owned;
}

} // namespace rdnafix::explain
