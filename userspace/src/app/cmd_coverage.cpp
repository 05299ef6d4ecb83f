// `rdnactl coverage`: its options and a callback that forwards to
// coverage::run_coverage.
#include "commands.hpp"
#include "machine_options.hpp"
#include "text_style.hpp"

#include "coverage/run.hpp"

#include <memory>

namespace rdnafix {

namespace {

struct CoverageArgs {
	app::MachineArgs machine;
	std::vector<std::string> paths, pythons, gfx;
	bool json = false, no_system = false, stats = false, verbose = false;
	std::string colour = "auto";
};

} // namespace

void add_coverage_command(CLI::App &app, int *rc)
{
	auto args = std::make_shared<CoverageArgs>();
	auto *sub = app.add_subcommand(
		"coverage",
		"Which GPU code the installed PyTorch / ROCm / llama.cpp libraries contain, per GPU: native, "
		"generic, only with HSA_OVERRIDE_GFX_VERSION, or missing (reads files, runs nothing)");
	app::add_machine_options(*sub, args->machine);
	sub->add_option("PATH", args->paths,
			"Judge only these files or directories (a .so, a code object, a bundle, a rocblas/library "
			"directory) instead of searching; with --root, paths inside DIR")
		->type_name("PATH");
	sub->add_option("--python", args->pythons,
			"Also look in this interpreter's environment (a python3 file or a venv/conda directory); "
			"repeatable.  Without it: VIRTUAL_ENV, CONDA_PREFIX and the first python3 on PATH")
		->type_name("PATH")
		->allow_extra_args(false);
	sub->add_option("--gfx", args->gfx,
			"Also judge this target (gfx1031, gfx90a:xnack+) as if such a GPU were present; repeatable")
		->type_name("TARGET")
		->allow_extra_args(false);
	sub->add_flag("--no-system", args->no_system,
		      "Skip system ROCm (ROCM_PATH, /opt/rocm*, /usr/lib/<multiarch>) and llama.cpp/ollama");
	sub->add_flag("--json", args->json, "Print JSON (schema_version 1) instead of text");
	sub->add_flag("--stats", args->stats, "Print the scan time and the bytes read on stderr");
	sub->add_flag("--verbose", args->verbose,
		      "Also list every place searched and why an override value is safe or unsafe, with its "
		      "sources");
	app::add_colour_option(*sub, &args->colour);
	sub->footer(
		"Looks in: the --python interpreters, VIRTUAL_ENV, CONDA_PREFIX, the first python3 on PATH (their "
		"site-packages/dist-packages: torch/lib, torch/lib/rocblas/library, torch/lib/hipblaslt/library, "
		"torch/share/miopen/db, _rocm_sdk_* wheels), ROCM_PATH, /opt/rocm*, /usr/lib/x86_64-linux-gnu, "
		"/usr/lib64, and libggml-hip.so of llama.cpp/ollama.  Only libraries that carry kernels are "
		"opened, and only their headers are read.\n"
		"Verdicts per GPU and installation: native (code for the GPU's own target), generic (gfx10-3-generic "
		"and friends; needs a ROCm 6.4+ runtime), only with HSA_OVERRIDE_GFX_VERSION=X (and whether that value "
		"is ISA-safe for the GPU; an unsafe value reads \"no usable code\", never as advice), missing (with "
		"the reason, e.g. an xnack+ object on an XNACK-off GPU).\n"
		"Example: rdnactl coverage --python ~/venv/bin/python3   |   rdnactl coverage --gfx gfx1031 "
		"/opt/rocm/lib/librocblas.so\n"
		"Exit codes: 0 every GPU has native or generic code in every installation that has GPU code, 1 some "
		"GPU has code only with an override or none (a library that could not be read counts as none), 2 "
		"rdnactl could not run (bad arguments, a PATH that does not exist or is not a file or directory, "
		"--root unusable).");
	sub->callback([args, rc] {
		if (!app::machine_args_ok(args->machine, "coverage", rc))
			return;
		coverage::CoverageOptions o;
		o.machine = app::collect_options(args->machine);
		o.scan.paths = args->paths;
		o.scan.pythons = args->pythons;
		o.scan.gfx = args->gfx;
		o.scan.system = !args->no_system;
		o.json = args->json;
		o.stats = args->stats;
		o.verbose = args->verbose;
		o.style = app::text_style(args->colour, args->json);
		*rc = coverage::run_coverage(o);
	});
}

} // namespace rdnafix
