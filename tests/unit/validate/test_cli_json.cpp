// The real rdnactl binary: its JSON output is a document whatever happens --
// without a GPU runtime (with the reason), with non-UTF-8 bytes in a case's
// output or in the history database -- and --torch runs on --device.
#include <catch2/catch_test_macros.hpp>

#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "io/child_runner.hpp"
#include "io/sqlite.hpp"

using rdnafix::io::ChildSpec;
using rdnafix::io::run_child;

namespace {

struct Out {
	int rc = -1;
	std::string out;
};

// stdout only (stderr to /dev/null), with `env` before the command.
Out rdnactl_stdout(const std::string &args, const std::string &env = "")
{
	ChildSpec spec{
		"/bin/sh", {"-c", env + " exec " + std::string(RDNACTL_PATH) + " " + args + " 2>/dev/null"}, 120, 2};
	spec.output_tail_bytes = 1 << 22;
	const auto o = run_child(spec);
	REQUIRE(o.exited);
	return {o.exit_code, o.output_tail};
}

struct TempDir {
	std::string path;
	TempDir()
	{
		char tmpl[] = "/tmp/rdnafix-cli-json-XXXXXX";
		REQUIRE(::mkdtemp(tmpl));
		path = tmpl;
	}
	~TempDir() { std::filesystem::remove_all(path); }
};

void write_exe(const std::string &path, const std::string &text)
{
	std::ofstream(path) << text;
	REQUIRE(::chmod(path.c_str(), 0755) == 0);
}

} // namespace

TEST_CASE("validate --json without a GPU runtime prints a document with the reason, exit 2", "[cli][json]")
{
	const auto o = rdnactl_stdout("validate --json --no-history");
	INFO(o.out);
	REQUIRE(o.rc == 2);
	const auto j = nlohmann::json::parse(o.out);
	REQUIRE(j["exit_code"] == 2);
	REQUIRE(j["cases"].empty());
	const std::string reason = j["not_run"]["reason"];
	CHECK((reason == "no_runtime" || reason == "no_backend" || reason == "runtime_no_device"));
	CHECK(j["not_run"]["message"] == "cannot run the GPU cases.");
	CHECK_FALSE(j["not_run"]["report"].get<std::string>().empty());
	CHECK(j["kernel_release"].get<std::string>().size() > 0);
}

TEST_CASE("validate --json survives non-UTF-8 bytes in a case's output", "[cli][json][utf8]")
{
	TempDir d;
	// A python3 that writes invalid UTF-8 (and a sequence cut in two) and fails.
	write_exe(d.path + "/python3", "#!/bin/sh\nprintf 'bad \\377\\376 bytes \\342\\202\\n' >&2\nexit 3\n");
	const auto o = rdnactl_stdout("validate --case torch.conv2d --no-history --json", "PATH=" + d.path + ":$PATH");
	INFO(o.out);
	REQUIRE(o.rc == 1);
	const auto j = nlohmann::json::parse(o.out);
	const auto &c = j["cases"][0];
	CHECK(c["status"] != "pass");
	const std::string tail = c.value("output_tail", "");
	CHECK(tail.find("bad \xef\xbf\xbd\xef\xbf\xbd bytes") != std::string::npos); // U+FFFD for each bad byte
}

TEST_CASE("history --json survives non-UTF-8 bytes in the database", "[cli][json][utf8]")
{
	TempDir d;
	const std::string db = d.path + "/history.db";
	{
		// a run recorded by rdnactl, then damaged: a device name that is not UTF-8
		const auto o = rdnactl_stdout("validate --case selftest.pass --history-db " + db);
		REQUIRE(o.rc == 0);
		auto c = rdnafix::io::sqlite::open(db);
		c.exec("UPDATE runs SET device = CAST(X'4750' || X'FF' || X'FE' AS TEXT), kernel_release = "
		       "CAST(X'362E31E282' AS TEXT)");
	}
	const auto o = rdnactl_stdout("history --json --history-db " + db);
	INFO(o.out);
	REQUIRE(o.rc == 0);
	const auto j = nlohmann::json::parse(o.out);
	CHECK(j["runs"][0]["device"] == "GP\xef\xbf\xbd\xef\xbf\xbd");
}

TEST_CASE("validate --torch runs on --device: the script is told the index", "[cli][torch]")
{
	TempDir d;
	// A stand-in torch package with one CUDA device: --device 1 is not there.
	std::filesystem::create_directories(d.path + "/torch/nn");
	std::ofstream(d.path + "/torch/__init__.py") << "__version__ = 'stand-in'\n"
							"class version:\n    hip = 'x'\n    cuda = None\n"
							"class _Flags:\n    allow_tf32 = True\n"
							"class backends:\n    cudnn = _Flags()\n"
							"    class cuda:\n        matmul = _Flags()\n"
							"class cuda:\n"
							"    is_available = staticmethod(lambda: True)\n"
							"    device_count = staticmethod(lambda: 1)\n";
	std::ofstream(d.path + "/torch/nn/__init__.py") << "";
	std::ofstream(d.path + "/torch/nn/functional.py") << "";
	const auto o =
		rdnactl_stdout("validate --case torch.conv2d --device 1 --no-history --json", "PYTHONPATH=" + d.path);
	INFO(o.out);
	const auto j = nlohmann::json::parse(o.out);
	const auto &c = j["cases"][0];
	CHECK(c["status"] == "error");
	CHECK(c.value("reason", "").find("--device 1: torch sees 1 device(s) (valid: 0..0)") != std::string::npos);
	CHECK(o.rc == 1);
}
