// Per-target library files named by target (coverage/libdirs.cpp): the names
// rocBLAS, hipBLASLt and MIOpen really use, and hostile names.
#include "software/libdirs.hpp"

#include <catch2/catch_test_macros.hpp>

using rdnafix::coverage::spelled;
using rdnafix::coverage::target_in_file_name;
using rdnafix::coverage::targets_in_names;

namespace {

std::string named(std::string_view n)
{
	auto t = target_in_file_name(n);
	return t ? spelled(*t) : "-";
}

} // namespace

TEST_CASE("rocBLAS and hipBLASLt Tensile file names give their target")
{
	CHECK(named("TensileLibrary_lazy_gfx1030.dat") == "gfx1030");
	CHECK(named("TensileLibrary_Type_HH_Contraction_l_Ailk_Bjlk_Cijk_Dijk_gfx1100.co") == "gfx1100");
	CHECK(named("TensileLibrary_Type_SS_Contraction_l_Alik_Bljk_Cijk_Dijk_fallback_gfx90a-xnack-.hsaco") ==
	      "gfx90a:xnack-");
	CHECK(named("TensileLibrary_lazy_gfx90a-xnack+.dat") == "gfx90a:xnack+");
	CHECK(named("Kernels.so-000-gfx1030.hsaco") == "gfx1030");
	CHECK(named("Kernels.so-000-gfx90a-xnack-.hsaco") == "gfx90a:xnack-");
	CHECK(named("Kernels.so-000-gfx942-sramecc+-xnack-.hsaco") == "gfx942:sramecc+:xnack-");
	CHECK(named("extop_gfx1100.co") == "gfx1100");
	CHECK(named("TensileLibrary_gfx906.co") == "gfx906");
	CHECK(named("TensileLibrary_lazy_gfx10-3-generic.dat") == "gfx10-3-generic");
	CHECK(named("TensileLibrary_lazy_gfx11-generic.dat") == "gfx11-generic");
	// Not per target.
	CHECK(named("TensileLibrary.dat") == "-");
	CHECK(named("TensileLiteLibrary_lazy_Mapping.dat") == "-");
}

TEST_CASE("MIOpen database names give their target, the CU count is not part of it")
{
	CHECK(named("gfx1030_36.HIP.fdb.txt") == "gfx1030");
	CHECK(named("gfx90a68.db.txt") == "gfx90a");
	CHECK(named("gfx90a6e.HIP.fdb.txt") == "gfx90a");
	CHECK(named("gfx1030.kdb") == "gfx1030");
	CHECK(named("gfx908.tn.model") == "gfx908");
	CHECK(named("libMIOpenCKGroupedConv_gfx1100.so") == "gfx1100");
}

TEST_CASE("hostile names are skipped, never trusted")
{
	CHECK(named("") == "-");
	CHECK(named("gfx") == "-");
	CHECK(named("gfx10") == "-");
	CHECK(named("gfxZZZZ.dat") == "-");
	CHECK(named("notgfx1030.dat") == "-");                         // not at a separator
	CHECK(named("TensileLibrary_GFX1030.dat") == "-");             // tools write lower case
	CHECK(named("TensileLibrary_gfx1030-xnack.dat") == "gfx1030"); // no +/-: feature ignored
	CHECK(named("gfx1030-xnack+-xnack-.co") == "gfx1030:xnack+");  // a repeated feature stops the list
	CHECK(named("gfx10-generic.dat") == "gfx10-generic");
	CHECK(named("gfx-generic.dat") == "-");
	CHECK(named(std::string(300, 'a') + "_gfx1030.co") == "-"); // longer than NAME_MAX
	CHECK(named(std::string("TensileLibrary_\0gfx1030.dat", 27)) == "-");
	// The first well-formed target wins over later noise.
	CHECK(named("x_gfxQ_gfx1031.co") == "gfx1031");
}

TEST_CASE("targets_in_names: distinct and sorted, with counts")
{
	auto r = targets_in_names({"TensileLibrary_lazy_gfx1100.dat", "TensileLibrary_lazy_gfx1030.dat",
				   "Kernels.so-000-gfx1030.hsaco", "TensileLibrary.dat", "README"});
	REQUIRE(r.targets.size() == 2);
	CHECK(spelled(r.targets[0]) == "gfx1030");
	CHECK(spelled(r.targets[1]) == "gfx1100");
	// Display order: by GFX version, a generic after its family.
	auto o = targets_in_names({"a_gfx1030.co", "a_gfx900.co", "a_gfx90a.co", "a_gfx10-3-generic.co", "a_gfx1100.co",
				   "a_gfx1036.co", "a_gfx11-generic.co", "a_gfx1200.co"});
	std::string order;
	for (const auto &t : o.targets)
		order += spelled(t) + " ";
	CHECK(order == "gfx900 gfx90a gfx1030 gfx1036 gfx10-3-generic gfx1100 gfx11-generic gfx1200 ");
	CHECK(r.files == 5);
	CHECK(r.files_with_target == 3);
}
