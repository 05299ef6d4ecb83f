// `rdnactl history --plot`: the SVG text (pure; see plot_svg.hpp).
#include "plot_svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <map>

#include <fmt/format.h>

#include "core/text_safe.hpp"
#include "history/result.hpp"

namespace rdnafix::validate {

namespace {

// Layout, in SVG user units (px).
constexpr double kLeft = 90, kRight = 30, kTop = 64, kPanelH = 120, kPanelGap = 36, kStep = 64, kBottom = 96;
constexpr double kMinWidth = 480;
constexpr std::size_t kLabelMax = 24;       // bytes of a kernel release shown under the axis
constexpr std::size_t kChangeLabelMax = 40; // bytes of the changed fact's name above a stack change

// One case across the runs: the result in each run (nullptr: not in that run).
struct Series {
	std::string name;
	std::string unit; // "GFLOP/s" or "GB/s", from the first result that has a figure
	std::vector<const StoredCase *> at;
	double max = 0;
};

std::optional<double> figure(const StoredCase &c)
{
	auto v = c.throughput();
	if (v && std::isfinite(*v) && *v >= 0)
		return v;
	return std::nullopt;
}

std::string num(double v)
{
	return fmt::format("{:.4g}", v);
}
std::string px(double v)
{
	return fmt::format("{:.1f}", v);
}

std::string cut(const std::string &s, std::size_t max)
{
	if (s.size() <= max)
		return s;
	return s.substr(0, core::utf8_prefix_len(s, max)) + "\u2026";
}

std::vector<Series> series_of(const std::vector<StoredRun> &runs)
{
	std::vector<Series> out;
	std::map<std::string, std::size_t> index;
	for (std::size_t i = 0; i < runs.size(); ++i)
		for (const auto &c : runs[i].cases) {
			auto [it, fresh] = index.try_emplace(c.name, out.size());
			if (fresh) {
				out.push_back({c.name, "", std::vector<const StoredCase *>(runs.size(), nullptr), 0});
			}
			auto &s = out[it->second];
			s.at[i] = &c;
			if (auto v = figure(c)) {
				s.max = std::max(s.max, *v);
				if (s.unit.empty())
					s.unit = c.gflops ? "GFLOP/s" : "GB/s";
			}
		}
	return out;
}

std::string run_title(const StoredRun &r)
{
	std::string t = fmt::format("run {} ({}), kernel {}", r.id, r.info.started_at, r.info.kernel_release);
	if (!r.info.device.empty())
		t += ", " + r.info.device;
	return t;
}

} // namespace

std::string xml_text(std::string_view s)
{
	const std::string v = core::utf8_valid(s);
	std::string out;
	out.reserve(v.size());
	for (std::size_t i = 0; i < v.size(); ++i) {
		const unsigned char c = static_cast<unsigned char>(v[i]);
		switch (c) {
		case '&':
			out += "&amp;";
			break;
		case '<':
			out += "&lt;";
			break;
		case '>':
			out += "&gt;";
			break;
		case '"':
			out += "&quot;";
			break;
		case '\'':
			out += "&#39;";
			break;
		default:
			if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
				out += "\uFFFD";
			} else if (c == 0xef && i + 2 < v.size() && static_cast<unsigned char>(v[i + 1]) == 0xbf &&
				   (static_cast<unsigned char>(v[i + 2]) & 0xfe) == 0xbe) {
				out += "\uFFFD"; // U+FFFE, U+FFFF: not XML characters
				i += 2;
			} else {
				out += static_cast<char>(c);
			}
		}
	}
	return out;
}

std::string plot_svg(const std::vector<StoredRun> &runs)
{
	const auto series = series_of(runs);
	const std::size_t n = runs.size();
	const double width = std::max(kMinWidth, kLeft + double(n) * kStep + kRight);
	const double panels_bottom = kTop + double(series.size()) * (kPanelH + kPanelGap);
	const double height = panels_bottom + kBottom;
	auto x_of = [](std::size_t i) { return kLeft + (double(i) + 0.5) * kStep; };

	std::string o;
	o += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
	o += fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" "
			 "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"11\">\n",
			 px(width), px(height));
	o += "<title>rdnactl validation history</title>\n";
	o += fmt::format("<rect width=\"{}\" height=\"{}\" fill=\"white\"/>\n", px(width), px(height));
	o += fmt::format("<text class=\"heading\" x=\"{}\" y=\"22\" font-size=\"14\">rdnactl validation history: "
			 "throughput per case, {} run{}</text>\n",
			 px(kLeft), n, n == 1 ? "" : "s");
	if (n == 0 || series.empty()) {
		o += fmt::format("<text class=\"empty\" x=\"{}\" y=\"{}\">no validation runs recorded</text>\n",
				 px(kLeft), px(kTop));
		return o + "</svg>\n";
	}
	o += fmt::format("<text x=\"{}\" y=\"40\" fill=\"#555\">\u25cf throughput (GFLOP/s or GB/s)   "
			 "<tspan fill=\"#d62728\">\u2715</tspan> failed (fail, crash, hang, error)   "
			 "\u2506 stack changed</text>\n",
			 px(kLeft));

	// Stack changes (compare_stacks: kernel, parameters, runtime, PyTorch,
	// environment, GPUs): a dashed line between the two runs across every
	// panel, the first change's name above it, all of them in its tooltip.
	for (std::size_t i = 1; i < n; ++i) {
		const auto changes = compare_stacks(runs[i - 1], runs[i]);
		if (changes.empty())
			continue;
		std::string all;
		for (const auto &c : changes)
			all += (all.empty() ? "" : "\n") + c.describe();
		std::string label = cut(changes.front().name, kChangeLabelMax);
		if (changes.size() > 1)
			label += fmt::format(" +{}", changes.size() - 1);
		const double x = kLeft + double(i) * kStep;
		o += fmt::format(
			"<line class=\"change\" data-run=\"{0}\" x1=\"{2}\" y1=\"{3}\" x2=\"{2}\" y2=\"{4}\" "
			"stroke=\"#888\" stroke-dasharray=\"4 3\"><title>{1}</title></line>\n"
			"<text class=\"change-label\" data-run=\"{0}\" x=\"{5}\" y=\"{6}\" fill=\"#555\">{7}</text>\n",
			runs[i].id, xml_text("stack changed at run " + std::to_string(runs[i].id) + ":\n" + all), px(x),
			px(kTop - 12), px(panels_bottom - kPanelGap + 4), px(x + 3), px(kTop - 4), xml_text(label));
	}

	for (std::size_t p = 0; p < series.size(); ++p) {
		const auto &s = series[p];
		const double top = kTop + double(p) * (kPanelH + kPanelGap);
		const double a0 = top + 20, a1 = top + kPanelH;
		const double ymax = s.max > 0 ? s.max * 1.1 : 1;
		auto y_of = [&](double v) { return a1 - v / ymax * (a1 - a0); };
		o += fmt::format("<g class=\"case\" data-case=\"{}\">\n", xml_text(s.name));
		o += fmt::format("<text class=\"case-title\" x=\"{}\" y=\"{}\" font-weight=\"bold\">{}{}</text>\n",
				 px(kLeft), px(top + 12), xml_text(s.name),
				 s.unit.empty() ? std::string(" (no throughput figure)") : " (" + s.unit + ")");
		o += fmt::format("<line class=\"axis\" x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#000\"/>\n"
				 "<line class=\"axis\" x1=\"{0}\" y1=\"{2}\" x2=\"{3}\" y2=\"{2}\" stroke=\"#000\"/>\n",
				 px(kLeft), px(a0), px(a1), px(width - kRight));
		if (!s.unit.empty())
			o += fmt::format("<text x=\"{0}\" y=\"{1}\" text-anchor=\"end\">{2}</text>\n"
					 "<text x=\"{0}\" y=\"{3}\" text-anchor=\"end\">0</text>\n",
					 px(kLeft - 6), px(a0 + 4), num(ymax), px(a1));

		// The line joins consecutive runs that both have a figure: a run without
		// one (failed, skipped, case absent) breaks it.
		std::string lines, line;
		std::size_t in_line = 0;
		auto end_line = [&] {
			if (in_line >= 2)
				lines += fmt::format("<polyline class=\"series\" points=\"{}\" fill=\"none\" "
						     "stroke=\"#1f77b4\" stroke-width=\"1.5\"/>\n",
						     line);
			line.clear();
			in_line = 0;
		};
		std::string marks;
		for (std::size_t i = 0; i < n; ++i) {
			const StoredCase *c = s.at[i];
			if (!c || !figure(*c))
				end_line();
			if (!c)
				continue;
			const double x = x_of(i);
			const std::string what = xml_text(run_title(runs[i]) + ": " + status_name(c->status) +
							  (c->reason.empty() ? "" : " (" + c->reason + ")"));
			if (auto v = figure(*c)) {
				const double y = y_of(*v);
				line += (line.empty() ? "" : " ") + px(x) + "," + px(y);
				++in_line;
				marks += fmt::format(
					"<circle class=\"point\" data-run=\"{}\" cx=\"{}\" cy=\"{}\" r=\"3.5\" "
					"fill=\"#1f77b4\"><title>{}: {} {}</title></circle>\n",
					runs[i].id, px(x), px(y), what, num(*v), s.unit);
			}
			if (is_failure(c->status)) {
				const double y = a1 - 9;
				marks += fmt::format("<g class=\"failure\" data-run=\"{}\" stroke=\"#d62728\" "
						     "stroke-width=\"2.5\"><title>{}</title>"
						     "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>"
						     "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/></g>\n",
						     runs[i].id, what, px(x - 5), px(y - 5), px(x + 5), px(y + 5),
						     px(x - 5), px(y + 5), px(x + 5), px(y - 5));
			}
		}
		end_line();
		o += lines;
		o += marks + "</g>\n";
	}

	// The runs under the last panel: "#id" and the kernel release.
	const double ly = panels_bottom - kPanelGap + 16;
	for (std::size_t i = 0; i < n; ++i) {
		const double x = x_of(i);
		o += fmt::format(
			"<text class=\"run-label\" data-run=\"{0}\" x=\"{1}\" y=\"{2}\" text-anchor=\"middle\">"
			"#{0}</text>\n",
			runs[i].id, px(x), px(ly));
		o += fmt::format("<text class=\"kernel-label\" x=\"{0}\" y=\"{1}\" text-anchor=\"end\" "
				 "transform=\"rotate(-40 {0} {1})\" fill=\"#555\">{2}</text>\n",
				 px(x), px(ly + 14), xml_text(cut(runs[i].info.kernel_release, kLabelMax)));
	}
	return o + "</svg>\n";
}

} // namespace rdnafix::validate
