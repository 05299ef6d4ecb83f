// The UTCL2 client-id tables of the amdgpu hubs (see amdgpu_fault.hpp for the
// kernel files and version they were written from) and the choice of table
// per GPU.
#include "core/amdgpu_fault.hpp"

#include <array>
#include <span>

namespace rdnafix::core::amdgpu_fault {

namespace {

// One named client: CID, access (0 read, 1 write), name.
struct Client {
	unsigned short cid;
	unsigned char rw;
	const char *name;
};

// GFX10 / GFX11 gfxhub: indexed by CID only (gfxhub_v2_0.c, gfxhub_v2_1.c, gfxhub_v3_0.c).
constexpr std::array<const char *, 18> gfxhub_names{
	"CB/DB",      "Reserved",   "GE1", "GE2",      "CPF",   "CPC",   "CPG", "RLC",   "TCP",
	"SQC (inst)", "SQC (data)", "SQG", "Reserved", "SDMA0", "SDMA1", "GCR", "SDMA2", "SDMA3"};

// mmhub_v2_0.c: Navi10/12/14.
constexpr Client mmhub_navi1x[] = {
	{3, 0, "DCEDMC"}, {4, 0, "DCEVGA"}, {5, 0, "MP0"},   {6, 0, "MP1"},   {13, 0, "VMC"},   {14, 0, "HDP"},
	{15, 0, "OSS"},   {16, 0, "VCNU"},  {17, 0, "JPEG"}, {18, 0, "VCN"},  {3, 1, "DCEDMC"}, {4, 1, "DCEXFC"},
	{5, 1, "DCEVGA"}, {6, 1, "DCEDWB"}, {7, 1, "MP0"},   {8, 1, "MP1"},   {9, 1, "DBGU1"},  {10, 1, "DBGU0"},
	{11, 1, "XDP"},   {14, 1, "HDP"},   {15, 1, "OSS"},  {16, 1, "VCNU"}, {17, 1, "JPEG"},  {18, 1, "VCN"},
};

// mmhub_v2_0.c: Sienna Cichlid, Navy Flounder, Dimgrey Cavefish.
constexpr Client mmhub_sienna_cichlid[] = {
	{3, 0, "DCEDMC"}, {4, 0, "DCEVGA"}, {5, 0, "MP0"},    {6, 0, "MP1"},    {8, 0, "VMC"},    {9, 0, "VCNU0"},
	{10, 0, "JPEG"},  {12, 0, "VCNU1"}, {13, 0, "VCN1"},  {14, 0, "HDP"},   {15, 0, "OSS"},   {43, 0, "VCN0"},
	{0, 1, "DBGU0"},  {1, 1, "DBGU1"},  {2, 1, "DCEDWB"}, {3, 1, "DCEDMC"}, {4, 1, "DCEVGA"}, {5, 1, "MP0"},
	{6, 1, "MP1"},    {7, 1, "XDP"},    {9, 1, "VCNU0"},  {10, 1, "JPEG"},  {11, 1, "VCN0"},  {12, 1, "VCNU1"},
	{13, 1, "VCN1"},  {14, 1, "HDP"},   {15, 1, "OSS"},
};

// mmhub_v2_0.c: Beige Goby.
constexpr Client mmhub_beige_goby[] = {
	{3, 0, "DCEDMC"}, {4, 0, "DCEVGA"}, {5, 0, "MP0"},  {6, 0, "MP1"},   {8, 0, "VMC"},   {9, 0, "VCNU0"},
	{11, 0, "VCN0"},  {14, 0, "HDP"},   {15, 0, "OSS"}, {0, 1, "DBGU0"}, {1, 1, "DBGU1"}, {2, 1, "DCEDWB"},
	{3, 1, "DCEDMC"}, {4, 1, "DCEVGA"}, {5, 1, "MP0"},  {6, 1, "MP1"},   {7, 1, "XDP"},   {9, 1, "VCNU0"},
	{11, 1, "VCN0"},  {14, 1, "HDP"},   {15, 1, "OSS"},
};

// mmhub_v2_3.c: Van Gogh (also used for Yellow Carp).
constexpr Client mmhub_vangogh[] = {
	{0, 0, "MP0"},    {1, 0, "MP1"},    {2, 0, "DCEDMC"}, {3, 0, "DCEVGA"}, {13, 0, "UTCL2"}, {26, 0, "OSS"},
	{27, 0, "HDP"},   {28, 0, "VCN"},   {29, 0, "VCNU"},  {30, 0, "JPEG"},  {0, 1, "MP0"},    {1, 1, "MP1"},
	{2, 1, "DCEDMC"}, {3, 1, "DCEVGA"}, {4, 1, "DCEDWB"}, {5, 1, "XDP"},    {26, 1, "OSS"},   {27, 1, "HDP"},
	{28, 1, "VCN"},   {29, 1, "VCNU"},  {30, 1, "JPEG"},
};

// mmhub_v3_0.c: MMHUB 3.0.0 (Navi31).
constexpr Client mmhub_v3_0_0[] = {
	{0, 0, "VMC"},    {4, 0, "DCEDMC"}, {5, 0, "DCEVGA"},   {6, 0, "MP0"},    {7, 0, "MP1"},    {8, 0, "MPIO"},
	{16, 0, "HDP"},   {17, 0, "LSDMA"}, {18, 0, "JPEG"},    {19, 0, "VCNU0"}, {21, 0, "VSCH"},  {22, 0, "VCNU1"},
	{23, 0, "VCN1"},  {52, 0, "VCN0"},  {2, 1, "DBGUNBIO"}, {3, 1, "DCEDWB"}, {4, 1, "DCEDMC"}, {5, 1, "DCEVGA"},
	{6, 1, "MP0"},    {7, 1, "MP1"},    {8, 1, "MPIO"},     {10, 1, "DBGU0"}, {11, 1, "DBGU1"}, {12, 1, "DBGU2"},
	{13, 1, "DBGU3"}, {14, 1, "XDP"},   {15, 1, "OSSSYS"},  {16, 1, "HDP"},   {17, 1, "LSDMA"}, {18, 1, "JPEG"},
	{19, 1, "VCNU0"}, {20, 1, "VCN0"},  {21, 1, "VSCH"},    {22, 1, "VCNU1"}, {23, 1, "VCN1"},
};

// mmhub_v3_3.c: MMHUB 3.3 (Strix).
constexpr Client mmhub_v3_3[] = {
	{0, 0, "VMC"},    {4, 0, "DCEDMC"}, {6, 0, "MP0"},  {7, 0, "MP1"},   {8, 0, "MPM"},     {24, 0, "HDP"},
	{25, 0, "LSDMA"}, {26, 0, "JPEG"},  {27, 0, "VPE"}, {29, 0, "VCNU"}, {30, 0, "VCN"},    {3, 1, "DCEDWB"},
	{4, 1, "DCEDMC"}, {6, 1, "MP0"},    {7, 1, "MP1"},  {8, 1, "MPM"},   {21, 1, "OSSSYS"}, {24, 1, "HDP"},
	{25, 1, "LSDMA"}, {26, 1, "JPEG"},  {27, 1, "VPE"}, {29, 1, "VCNU"}, {30, 1, "VCN"},
};

std::span<const Client> mmhub_clients(ClientTable t)
{
	switch (t) {
	case ClientTable::mmhub_navi1x:
		return mmhub_navi1x;
	case ClientTable::mmhub_sienna_cichlid:
		return mmhub_sienna_cichlid;
	case ClientTable::mmhub_beige_goby:
		return mmhub_beige_goby;
	case ClientTable::mmhub_vangogh:
		return mmhub_vangogh;
	case ClientTable::mmhub_v3_0_0:
		return mmhub_v3_0_0;
	case ClientTable::mmhub_v3_3:
		return mmhub_v3_3;
	case ClientTable::gfxhub_gfx10_gfx11:
	case ClientTable::none:
		break;
	}
	return {};
}

} // namespace

std::string_view client_table_source(ClientTable t)
{
	switch (t) {
	case ClientTable::gfxhub_gfx10_gfx11:
		return "gfxhub_v2_0.c / gfxhub_v2_1.c / gfxhub_v3_0.c: gfxhub_client_ids";
	case ClientTable::mmhub_navi1x:
		return "mmhub_v2_0.c: mmhub_client_ids_navi1x";
	case ClientTable::mmhub_sienna_cichlid:
		return "mmhub_v2_0.c: mmhub_client_ids_sienna_cichlid";
	case ClientTable::mmhub_beige_goby:
		return "mmhub_v2_0.c: mmhub_client_ids_beige_goby";
	case ClientTable::mmhub_vangogh:
		return "mmhub_v2_3.c: mmhub_client_ids_vangogh";
	case ClientTable::mmhub_v3_0_0:
		return "mmhub_v3_0.c: mmhub_client_ids_v3_0_0";
	case ClientTable::mmhub_v3_3:
		return "mmhub_v3_3.c: mmhub_client_ids_v3_3";
	case ClientTable::none:
		break;
	}
	return "";
}

ClientTable client_table_for(Hub hub, std::string_view gfx)
{
	if (hub == Hub::gfxhub) {
		// GFX12 (gfxhub_v12_0) and GFX9 have other tables; gfx "" keeps the GFX10/11 list.
		if (gfx.empty() || gfx.starts_with("gfx10") || gfx.starts_with("gfx11"))
			return ClientTable::gfxhub_gfx10_gfx11;
		return ClientTable::none;
	}
	if (hub != Hub::mmhub)
		return ClientTable::none;
	if (gfx == "gfx1010" || gfx == "gfx1011" || gfx == "gfx1012")
		return ClientTable::mmhub_navi1x;
	if (gfx == "gfx1030" || gfx == "gfx1031" || gfx == "gfx1032")
		return ClientTable::mmhub_sienna_cichlid;
	if (gfx == "gfx1034")
		return ClientTable::mmhub_beige_goby;
	if (gfx == "gfx1033" || gfx == "gfx1035")
		return ClientTable::mmhub_vangogh;
	if (gfx == "gfx1100")
		return ClientTable::mmhub_v3_0_0;
	if (gfx == "gfx1150" || gfx == "gfx1151")
		return ClientTable::mmhub_v3_3;
	return ClientTable::none;
}

std::string client_name(ClientTable t, unsigned cid, bool write)
{
	if (t == ClientTable::gfxhub_gfx10_gfx11)
		return cid < gfxhub_names.size() ? gfxhub_names[cid] : "";
	for (const auto &c : mmhub_clients(t))
		if (c.cid == cid && c.rw == (write ? 1 : 0))
			return c.name;
	return "";
}

} // namespace rdnafix::core::amdgpu_fault
