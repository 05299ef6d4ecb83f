// history --plot: the SVG text (pure).  The document is parsed as XML by
// tests/plot/check_plot.py (ctest history_plot_xml) on the real binary's output.
#include <catch2/catch_test_macros.hpp>

#include <cmath>
#include <limits>
#include <string>

#include "plot_svg.hpp"

using namespace rdnafix::validate;

namespace {

std::size_t count(const std::string &text, const std::string &what)
{
	std::size_t n = 0;
	for (auto i = text.find(what); i != std::string::npos; i = text.find(what, i + what.size()))
		++n;
	return n;
}

StoredCase result(std::string name, Status st, std::optional<double> gflops, std::optional<double> gbs = {})
{
	StoredCase c;
	c.name = std::move(name);
	c.status = st;
	c.gflops = gflops;
	c.gbs = gbs;
	return c;
}

StoredRun run(std::int64_t id, std::string kernel, std::vector<StoredCase> cases)
{
	StoredRun r;
	r.id = id;
	r.info.started_at = "2026-11-2" + std::to_string(id) + "T10:00:00Z";
	r.info.kernel_release = kernel;
	r.info.stack.set("kernel", kernel);
	r.info.stack.set("hip", "6.2.41133");
	r.cases = std::move(cases);
	return r;
}

const std::string kHostile = std::string("x<&>\"'\x01\xff") + "</svg>";

} // namespace

TEST_CASE("plot: one point per figure, a cross per failure, a line per kernel change", "[plot]")
{
	auto fail = result("stream.copy", Status::fail, std::nullopt);
	fail.reason = "mismatch at 12 & 13";
	std::vector<StoredRun> runs{
		run(1, "6.1.0-28-amd64",
		    {result("conv.fp32", Status::pass, 100.0), result("stream.copy", Status::pass, {}, 50.0)}),
		run(2, "6.1.0-28-amd64", {result("conv.fp32", Status::pass, 110.0), fail}),
		run(3, "6.12.57+deb12-amd64",
		    {result("conv.fp32", Status::crash, std::nullopt), result(kHostile, Status::pass, 1.0),
		     result("stream.copy", Status::skip, std::nullopt)}),
	};
	const auto svg = plot_svg(runs);
	CHECK(svg.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 0) == 0);
	CHECK(count(svg, "<g class=\"case\"") == 3);
	CHECK(count(svg, "class=\"point\"") == 4); // conv 1, 2; stream 1; the hostile case 3
	CHECK(count(svg, "class=\"point\" data-run=\"1\"") == 2);
	CHECK(count(svg, "class=\"failure\"") == 2); // stream.copy in run 2, conv.fp32 (crash) in run 3
	CHECK(count(svg, "class=\"failure\" data-run=\"2\"") == 1);
	CHECK(count(svg, "class=\"failure\" data-run=\"3\"") == 1);
	CHECK(count(svg, "class=\"change\"") == 1);
	CHECK(count(svg, "class=\"change\" data-run=\"3\"") == 1);
	CHECK(count(svg, "class=\"run-label\"") == 3);
	// The line joins runs 1 and 2 of conv.fp32 only: a failure or a skip breaks it.
	CHECK(count(svg, "class=\"series\"") == 1);
	CHECK(count(svg, "conv.fp32 (GFLOP/s)") == 1);
	CHECK(count(svg, "stream.copy (GB/s)") == 1);
	CHECK(count(svg, "mismatch at 12 &amp; 13") == 1);
	CHECK(count(svg, "kernel 6.1.0-28-amd64 \u2192 6.12.57+deb12-amd64") == 1);
	CHECK(count(svg, "class=\"change-label\" data-run=\"3\"") == 1);
	// Hostile text: escaped, never markup.
	CHECK(count(svg, "x&lt;&amp;&gt;&quot;&#39;\uFFFD\uFFFD&lt;/svg&gt;") == 2); // data-case and the title
	CHECK(count(svg, "</svg>") == 1);
	CHECK(count(svg, "<g ") == count(svg, "</g>"));
	CHECK(svg.find('\x01') == std::string::npos);
}

TEST_CASE("plot: any stack change is marked, not only the kernel", "[plot]")
{
	std::vector<StoredRun> runs{run(1, "6.12.57", {result("conv", Status::pass, 10.0)}),
				    run(2, "6.12.57", {result("conv", Status::pass, 10.0)}),
				    run(3, "6.12.57", {result("conv", Status::fail, std::nullopt)})};
	runs[2].info.stack.set("env.HSA_OVERRIDE_GFX_VERSION", "10.3.0");
	runs[2].info.stack.set("hip", "6.3.42131");
	const auto svg = plot_svg(runs);
	CHECK(count(svg, "class=\"change\"") == 1);
	CHECK(count(svg, "class=\"change\" data-run=\"3\"") == 1);
	CHECK(count(svg, "hip +1</text>") ==
	      1); // the most telling change (the runtime before the environment), and how many more
	CHECK(count(svg, "hip 6.2.41133 \u2192 6.3.42131") == 1);
	CHECK(count(svg, "class=\"failure\" data-run=\"3\"") == 1);
}

TEST_CASE("plot: figures that are not finite or negative are not drawn", "[plot][hostile]")
{
	std::vector<StoredRun> runs{run(1, "k",
					{result("c", Status::pass, std::numeric_limits<double>::quiet_NaN()),
					 result("d", Status::pass, -1.0),
					 result("e", Status::pass, std::numeric_limits<double>::infinity())})};
	const auto svg = plot_svg(runs);
	CHECK(count(svg, "class=\"point\"") == 0);
	CHECK(count(svg, "(no throughput figure)") == 3);
	CHECK(svg.find("nan") == std::string::npos);
	CHECK(svg.find("inf") == std::string::npos);
}

TEST_CASE("plot: no runs is a document that says so", "[plot]")
{
	const auto svg = plot_svg({});
	CHECK(count(svg, "no validation runs recorded") == 1);
	CHECK(count(svg, "</svg>") == 1);
}

TEST_CASE("plot: xml_text escapes markup and replaces what XML 1.0 forbids", "[plot][hostile]")
{
	CHECK(xml_text("a&b<c>d\"e'f") == "a&amp;b&lt;c&gt;d&quot;e&#39;f");
	CHECK(xml_text(std::string("t\tn\nr\r", 6)) == std::string("t\tn\nr\r", 6));
	CHECK(xml_text(std::string("\x00\x1b", 2)) == "\uFFFD\uFFFD");
	CHECK(xml_text("\xef\xbf\xbe\xef\xbf\xbf") == "\uFFFD\uFFFD"); // U+FFFE, U+FFFF
	CHECK(xml_text("\xc3") == "\uFFFD");                           // cut UTF-8
	CHECK(xml_text("gfx1031 \u00e9") == "gfx1031 \u00e9");
}
