// Unified diff over lines: longest common subsequence (the files rdnactl
// writes are a few dozen lines), then hunks with 3 lines of context.
#include "config/diff.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace rdnafix::config {

namespace {

constexpr std::size_t kContext = 3;

struct Line {
	std::string text;
	bool newline = true;
	bool operator==(const Line &o) const { return text == o.text && newline == o.newline; }
};

std::vector<Line> lines_of(const std::optional<std::string> &s)
{
	std::vector<Line> out;
	if (!s)
		return out;
	std::size_t pos = 0;
	while (pos < s->size()) {
		std::size_t e = s->find('\n', pos);
		if (e == std::string::npos) {
			out.push_back(Line{s->substr(pos), false});
			break;
		}
		out.push_back(Line{s->substr(pos, e - pos), true});
		pos = e + 1;
	}
	return out;
}

enum class Op { keep, del, add };
struct Edit {
	Op op;
	std::size_t a, b; // indexes into the old and new lines
};

std::vector<Edit> edits(const std::vector<Line> &a, const std::vector<Line> &b)
{
	const std::size_t n = a.size(), m = b.size();
	std::vector<std::vector<unsigned>> lcs(n + 1, std::vector<unsigned>(m + 1, 0));
	for (std::size_t i = n; i-- > 0;)
		for (std::size_t j = m; j-- > 0;)
			lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
	std::vector<Edit> out;
	std::size_t i = 0, j = 0;
	while (i < n || j < m) {
		if (i < n && j < m && a[i] == b[j]) {
			out.push_back({Op::keep, i++, j++});
		} else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
			out.push_back({Op::del, i++, j}); // deletions first, as diff -u
		} else {
			out.push_back({Op::add, i, j++});
		}
	}
	return out;
}

void emit(std::string &out, char mark, const Line &l)
{
	out += mark;
	out += l.text;
	out += '\n';
	if (!l.newline)
		out += "\\ No newline at end of file\n";
}

} // namespace

std::string unified_diff(std::string_view path, const std::optional<std::string> &before,
			 const std::optional<std::string> &after)
{
	if (before == after)
		return "";
	const auto a = lines_of(before), b = lines_of(after);
	const auto e = edits(a, b);
	std::string out = fmt::format("--- {}\n+++ {}\n", before ? fmt::format("a/{}", path) : "/dev/null",
				      after ? fmt::format("b/{}", path) : "/dev/null");
	std::size_t k = 0;
	while (k < e.size()) {
		while (k < e.size() && e[k].op == Op::keep)
			++k;
		if (k == e.size())
			break;
		// The hunk: from kContext lines before this change to kContext
		// after the last change that is within 2*kContext of the next.
		std::size_t start = k >= kContext ? k - kContext : 0;
		std::size_t end = k;
		std::size_t keeps = 0;
		for (std::size_t x = k; x < e.size(); ++x) {
			if (e[x].op == Op::keep) {
				if (++keeps > 2 * kContext)
					break;
			} else {
				keeps = 0;
				end = x;
			}
		}
		std::size_t stop = std::min(e.size(), end + 1 + kContext);
		std::size_t a0 = e[start].a, b0 = e[start].b, na = 0, nb = 0;
		std::string body;
		for (std::size_t x = start; x < stop; ++x) {
			if (e[x].op != Op::add)
				++na;
			if (e[x].op != Op::del)
				++nb;
			if (e[x].op == Op::keep)
				emit(body, ' ', a[e[x].a]);
			else if (e[x].op == Op::del)
				emit(body, '-', a[e[x].a]);
			else
				emit(body, '+', b[e[x].b]);
		}
		auto range = [](std::size_t first, std::size_t count) {
			std::size_t shown = count == 0 ? first : first + 1;
			return count == 1 ? fmt::format("{}", shown) : fmt::format("{},{}", shown, count);
		};
		out += fmt::format("@@ -{} +{} @@\n", range(a0, na), range(b0, nb));
		out += body;
		k = stop;
	}
	return out;
}

} // namespace rdnafix::config
