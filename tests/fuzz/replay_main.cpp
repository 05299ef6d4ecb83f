// The main of a fuzz target built without libFuzzer (RDNAFIX_FUZZ=REPLAY, the
// GCC sanitizer build of tests/fuzz/run.sh): runs the target once on each
// file named, or on each file of each directory named, in name order.
// Exit 0 when every input ran (a finding aborts the process), 2 when an
// input cannot be read.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size);

namespace fs = std::filesystem;

int main(int argc, char **argv)
{
	std::vector<fs::path> inputs;
	for (int i = 1; i < argc; ++i) {
		std::error_code ec;
		if (fs::is_directory(argv[i], ec)) {
			for (const auto &e : fs::directory_iterator(argv[i], ec))
				if (e.is_regular_file() && e.path().filename().string().front() != '.')
					inputs.push_back(e.path());
		} else {
			inputs.emplace_back(argv[i]);
		}
		if (ec) {
			std::fprintf(stderr, "replay: cannot read %s: %s\n", argv[i], ec.message().c_str());
			return 2;
		}
	}
	std::sort(inputs.begin(), inputs.end());
	for (const auto &p : inputs) {
		std::ifstream in(p, std::ios::binary);
		if (!in) {
			std::fprintf(stderr, "replay: cannot read %s\n", p.c_str());
			return 2;
		}
		const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
		std::fprintf(stderr, "replay: running %s\n",
			     p.c_str()); // the last one named before a report is the culprit
		LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t *>(bytes.data()), bytes.size());
	}
	std::printf("replay: %zu inputs, no finding\n", inputs.size());
	return 0;
}
