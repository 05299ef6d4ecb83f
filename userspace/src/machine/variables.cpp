// The variables table of this run: built-in rows, then the overlay files.
#include "machine/variables.hpp"

#include "io/knowledge_dirs.hpp"

namespace rdnafix::machine {

namespace {

bool has_variables(const std::string &text)
{
	return text.find("[[variable]]") != std::string::npos;
}

} // namespace

LoadedVariables load_variables(const std::vector<knowledge::SourceText> &builtin, bool overlays)
{
	LoadedVariables out;
	std::vector<knowledge::SourceText> files;
	for (const auto &f : builtin)
		if (has_variables(f.text))
			files.push_back(f);
	std::vector<std::string> io_problems;
	if (overlays)
		for (auto &f : io::read_knowledge_dirs(&io_problems))
			if (has_variables(f.text))
				files.push_back({std::move(f.path), std::move(f.text)});
	knowledge::Base base;
	std::vector<knowledge::Problem> problems;
	knowledge::parse(files, &base, &problems);
	for (const auto &p : io_problems)
		out.notes.push_back({"knowledge.d", p});
	for (const auto &p : problems)
		out.notes.push_back(
			{p.file, p.line ? std::to_string(p.line) + ": " + p.what + " (row not used)" : p.what});
	out.table = std::make_shared<const core::VarTable>(std::move(base.variables));
	return out;
}

} // namespace rdnafix::machine
