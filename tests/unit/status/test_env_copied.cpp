// RDNA-ENV-014..017: copied variables that do nothing on ROCm, misspelt
// names, allocator configurations PyTorch rejects, the sudo context; and what
// `rdnactl env` prints for them.
#include "machine/interpret.hpp"
#include "model.hpp"
#include "render.hpp"
#include "snapshot_builders.hpp"
#include "support.hpp"

#include "core/parse.hpp"

#include <catch2/catch_test_macros.hpp>
#include <catch2/matchers/catch_matchers_string.hpp>

#include <filesystem>
#include <unistd.h>

using namespace rdnafix::status;
using namespace rdnafix::machine;
using Catch::Matchers::ContainsSubstring;
using rdnafix::test::amd;
using rdnafix::test::base;
using rdnafix::test::set_env;

namespace {

std::vector<Finding> all(const std::vector<Finding> &f, const std::string &id)
{
	std::vector<Finding> out;
	for (const auto &x : f)
		if (x.id == id)
			out.push_back(x);
	return out;
}

Snapshot gfx1030()
{
	auto s = base();
	s.devices = {amd("0000:03:00.0", "gfx1030", "rdna2", false, 1, 0)};
	return s;
}

} // namespace

TEST_CASE("RDNA-ENV-014: CUDA-only, build-time and TensorFlow variables", "[findings][env][copied]")
{
	auto s = gfx1030();
	set_env(s, "CUDA_LAUNCH_BLOCKING=1\nPYTORCH_ROCM_ARCH=gfx1030\nTF_FORCE_GPU_ALLOW_GROWTH=true\n"
		   "CUDA_VISIBLE_DEVICES=0\nHIP_LAUNCH_BLOCKING=1\n");
	auto f = evaluate(s);
	auto x = all(f, "RDNA-ENV-014");
	REQUIRE(x.size() == 3);
	CHECK(x[0].subject == "CUDA_LAUNCH_BLOCKING");
	CHECK(x[0].severity == Severity::info);
	CHECK_THAT(x[0].finding, ContainsSubstring("CUDA_LAUNCH_BLOCKING=1 has no effect here (CUDA only)"));
	CHECK_THAT(x[0].why, ContainsSubstring("rocclr/utils/flags.hpp"));
	CHECK_THAT(x[0].fix, ContainsSubstring("AMD_SERIALIZE_KERNEL=3"));
	CHECK(std::get<UnsetEnv>(x[0].remedies.at(0)).name == "CUDA_LAUNCH_BLOCKING");
	// Build-time only: not unset by `rdnactl env` (an extension build may need it).
	CHECK(x[1].subject == "PYTORCH_ROCM_ARCH");
	CHECK(std::holds_alternative<NoChange>(x[1].remedies.at(0)));
	CHECK(x[2].subject == "TF_FORCE_GPU_ALLOW_GROWTH");
	// CUDA_LAUNCH_BLOCKING is no longer a slow switch (the HIP runtime ignores it);
	// HIP_LAUNCH_BLOCKING still is.
	bool slow = false;
	for (const auto &y : f)
		if (y.id == "RDNA-ENV-008") {
			slow = true;
			CHECK_THAT(y.finding, !ContainsSubstring("CUDA_LAUNCH_BLOCKING"));
			CHECK_THAT(y.finding, ContainsSubstring("HIP_LAUNCH_BLOCKING=1"));
		}
	CHECK(slow);
	const std::string env = render_env(recommend_env(s), Shell::sh);
	CHECK_THAT(env, ContainsSubstring("unset CUDA_LAUNCH_BLOCKING"));
	CHECK_THAT(env, ContainsSubstring("unset TF_FORCE_GPU_ALLOW_GROWTH"));
	CHECK_THAT(env, !ContainsSubstring("PYTORCH_ROCM_ARCH"));
}

TEST_CASE("RDNA-ENV-015: misspelt names, with the value moved to the real name", "[findings][env][copied]")
{
	auto s = gfx1030();
	set_env(s, "PYTORCH_HIP_ALLOC_CONFIG=garbage_collection_threshold:0.6\nHSA_OVERIDE_GFX_VERSION=10.3.0\n"
		   "ROCM_VISIBLE_DEVICES=0\nROCR_VISIBLE_DEVICES=0\n");
	auto f = evaluate(s);
	auto x = all(f, "RDNA-ENV-015");
	REQUIRE(x.size() == 3);
	// std::map order: HSA_..., PYTORCH_..., ROCM_...
	CHECK(x[0].subject == "HSA_OVERIDE_GFX_VERSION");
	CHECK_THAT(x[0].finding, ContainsSubstring("did you mean HSA_OVERRIDE_GFX_VERSION?"));
	REQUIRE(x[0].remedies.size() == 1); // an override is not copied blindly
	CHECK(std::get<UnsetEnv>(x[0].remedies[0]).name == "HSA_OVERIDE_GFX_VERSION");
	CHECK(x[1].subject == "PYTORCH_HIP_ALLOC_CONFIG");
	REQUIRE(x[1].remedies.size() == 2);
	const auto &set = std::get<SetEnv>(x[1].remedies[1]);
	CHECK(set.name == "PYTORCH_HIP_ALLOC_CONF");
	CHECK(set.value == "garbage_collection_threshold:0.6");
	// The real name is already set: only the misspelling goes.
	CHECK(x[2].subject == "ROCM_VISIBLE_DEVICES");
	CHECK(x[2].remedies.size() == 1);
	const std::string env = render_env(recommend_env(s), Shell::sh);
	CHECK_THAT(env, ContainsSubstring("unset PYTORCH_HIP_ALLOC_CONFIG"));
	CHECK_THAT(env, ContainsSubstring("export PYTORCH_HIP_ALLOC_CONF='garbage_collection_threshold:0.6'"));
	CHECK_THAT(env, ContainsSubstring("unset HSA_OVERIDE_GFX_VERSION"));
}

TEST_CASE("RDNA-ENV-016: allocator keys and values PyTorch rejects", "[findings][env][alloc]")
{
	auto s = gfx1030();
	set_env(s, "PYTORCH_HIP_ALLOC_CONF=garbage_collection_threshold:0.6,max_split_size:512,"
		   "expandable_segments:true\n"
		   "PYTORCH_ALLOC_CONF=max_split_size_mb:128,roundup_power2_divisions:[256:1,>:4]\n"
		   "PYTORCH_CUDA_ALLOC_CONF=backend:native,garbage_collection_threshold\n");
	auto f = evaluate(s);
	auto x = all(f, "RDNA-ENV-016");
	REQUIRE(x.size() == 2); // PYTORCH_ALLOC_CONF is valid
	CHECK(x[0].subject == "PYTORCH_CUDA_ALLOC_CONF");
	CHECK(x[0].severity == Severity::error);
	CHECK_THAT(x[0].finding, ContainsSubstring("'garbage_collection_threshold' has no ':value'"));
	CHECK(std::get<SetEnv>(x[0].remedies.at(0)).value == "backend:native");
	CHECK(x[1].subject == "PYTORCH_HIP_ALLOC_CONF");
	CHECK_THAT(x[1].finding, ContainsSubstring("unknown key 'max_split_size' (did you mean max_split_size_mb?)"));
	CHECK_THAT(x[1].finding, ContainsSubstring("expandable_segments:true: PyTorch accepts only True or False"));
	// The unknown key goes; expandable_segments goes too (RDNA-ENV-010 asks for that).
	CHECK(std::get<SetEnv>(x[1].remedies.at(0)).value == "garbage_collection_threshold:0.6");
	// RDNA-ENV-010 on the same variable proposes the same value (never a key PyTorch rejects).
	auto e10 = all(f, "RDNA-ENV-010");
	REQUIRE(e10.size() == 1);
	CHECK(std::get<SetEnv>(e10[0].remedies.at(0)).value == "garbage_collection_threshold:0.6");
	auto only_bad = gfx1030();
	set_env(only_bad, "PYTORCH_CUDA_ALLOC_CONF=max_split:64\n");
	auto g = all(evaluate(only_bad), "RDNA-ENV-016");
	REQUIRE(g.size() == 1);
	CHECK(std::get<UnsetEnv>(g[0].remedies.at(0)).name == "PYTORCH_CUDA_ALLOC_CONF");
}

TEST_CASE("RDNA-ENV-017: sudo dropped the user's variables", "[findings][env][sudo]")
{
	auto user_env = rdnafix::core::parse_environ(std::string("HOME=/home/alice\0HSA_OVERRIDE_GFX_VERSION=10.3.0\0"
								 "PYTORCH_HIP_ALLOC_CONF=max_split_size_mb:128\0"
								 "HIP_VISIBLE_DEVICES=0\0",
								 116));
	auto root_env = rdnafix::core::parse_environ(std::string("HOME=/root\0HIP_VISIBLE_DEVICES=0\0", 33));
	auto s = gfx1030();
	s.environment = build_sudo_environment("alice", &user_env, root_env);
	CHECK(s.environment.vars.at("HSA_OVERRIDE_GFX_VERSION") == "10.3.0"); // the user's environment is audited
	CHECK(s.environment.sudo_dropped ==
	      std::vector<std::string>{"HSA_OVERRIDE_GFX_VERSION", "PYTORCH_HIP_ALLOC_CONF"});
	auto f = all(evaluate(s), "RDNA-ENV-017");
	REQUIRE(f.size() == 1);
	CHECK(f[0].severity == Severity::info);
	CHECK_THAT(f[0].finding, ContainsSubstring("run under sudo: access judged for user alice"));
	CHECK_THAT(f[0].finding,
		   ContainsSubstring("sudo dropped these variables: HSA_OVERRIDE_GFX_VERSION,PYTORCH_HIP_ALLOC_CONF"));
	CHECK_THAT(f[0].fix, ContainsSubstring("sudo --preserve-env=HSA_OVERRIDE_GFX_VERSION,PYTORCH_HIP_ALLOC_CONF"));
	CHECK_THAT(f[0].fix, ContainsSubstring("sudo -E"));

	// The sudo call's environment could not be read: this process's is audited, and said so.
	auto t = gfx1030();
	t.environment = build_sudo_environment("alice", nullptr, root_env);
	CHECK(t.environment.vars.count("HIP_VISIBLE_DEVICES"));
	CHECK(t.environment.sudo_dropped.empty());
	auto g = all(evaluate(t), "RDNA-ENV-017");
	REQUIRE(g.size() == 1);
	CHECK_THAT(g[0].finding, ContainsSubstring("could not be read"));

	const std::string note = render_env_sudo_note(s.environment);
	CHECK_THAT(note,
		   ContainsSubstring("# run under sudo: access judged for user alice; these lines are for alice's"));
	CHECK_THAT(note, ContainsSubstring(
				 "# sudo dropped these variables: HSA_OVERRIDE_GFX_VERSION,PYTORCH_HIP_ALLOC_CONF"));
	CHECK_THAT(render_env_sudo_note(t.environment), ContainsSubstring("could not be read"));

	// Not under sudo: no finding, no note.
	auto u = gfx1030();
	set_env(u, "HIP_VISIBLE_DEVICES=0\n");
	CHECK(all(evaluate(u), "RDNA-ENV-017").empty());
	CHECK(render_env_sudo_note(u.environment).empty());
}

TEST_CASE("rdnactl under a sudo parent judges SUDO_USER and names the dropped variables", "[live][sudo]")
{
	if (geteuid() != 0)
		SKIP("sudo runs its command as root; this test needs root");
	// A stand-in for sudo: a process named "sudo" that keeps the caller's
	// environment and starts the command with a reset one plus SUDO_USER.
	rdnafix::test::TempDir d;
	d.write("sudo", "#!/bin/sh\nenv -i SUDO_USER=alice PATH=/usr/bin:/bin \"$@\"\nexit $?\n");
	std::filesystem::permissions(d.path() / "sudo", std::filesystem::perms::owner_all);
	// The caller's environment is exactly these (env -i): a variable of the
	// host's (CUDA_HOME, ROCM_PATH) is not part of what this test judges.
	auto r = rdnafix::test::run_rdnactl(
		{"status", "--json"}, {},
		{"/usr/bin/env", "-i", "PATH=/usr/bin:/bin", "HSA_OVERRIDE_GFX_VERSION=10.3.0",
		 "PYTORCH_HIP_ALLOC_CONF=max_split_size_mb:128", (d.path() / "sudo").string()});
	INFO(r.out << r.err);
	REQUIRE((r.exit_code == 0 || r.exit_code == 1));
	auto j = nlohmann::json::parse(r.out);
	CHECK(j["access"]["subject"] == "user");
	CHECK(j["access"]["user"] == "alice");
	const auto &e = j["environment"];
	CHECK(e["sudo"]["user"] == "alice");
	CHECK(e["sudo"]["environ_read"] == true);
	CHECK(e["variables"]["HSA_OVERRIDE_GFX_VERSION"] == "10.3.0");
	CHECK(e["sudo"]["dropped"] == nlohmann::json::array({"HSA_OVERRIDE_GFX_VERSION", "PYTORCH_HIP_ALLOC_CONF"}));
	bool said = false;
	for (const auto &f : j["findings"])
		if (f["id"] == "RDNA-ENV-017") {
			said = true;
			CHECK_THAT(f["finding"].get<std::string>(), ContainsSubstring("access judged for user alice"));
			CHECK_THAT(f["fix"].get<std::string>(),
				   ContainsSubstring("--preserve-env=HSA_OVERRIDE_GFX_VERSION,PYTORCH_HIP_ALLOC_CONF"));
		}
	CHECK(said);
	auto env = rdnafix::test::run_rdnactl({"env"}, {},
					      {"/usr/bin/env", "-i", "PATH=/usr/bin:/bin",
					       "HSA_OVERRIDE_GFX_VERSION=10.3.0", (d.path() / "sudo").string()});
	CHECK(env.exit_code == 0);
	CHECK_THAT(env.out, ContainsSubstring("# run under sudo: access judged for user alice"));
	CHECK_THAT(env.out, ContainsSubstring("sudo --preserve-env=HSA_OVERRIDE_GFX_VERSION"));
	// --user wins over SUDO_USER; --root never looks at sudo.
	auto u = rdnafix::test::run_rdnactl({"status", "--json", "--user", "root"}, {}, {(d.path() / "sudo").string()});
	auto ju = nlohmann::json::parse(u.out);
	CHECK(ju["access"]["user"] == "root");
	CHECK_FALSE(ju["environment"].contains("sudo"));
}
