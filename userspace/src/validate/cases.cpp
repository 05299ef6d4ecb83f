#include "cases.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace rdnafix::validate {

namespace {

struct ShapeDef {
	const char *id;
	const char *origin;
	ConvShape shape;
	bool quick;
};

ConvShape conv(int n, int c, int h, int w, int k, int r, int s, int stride, int pad, int dil = 1, int groups = 1)
{
	ConvShape sh;
	sh.n = n, sh.c = c, sh.h = h, sh.w = w, sh.k = k, sh.r = r, sh.s = s;
	sh.stride_h = sh.stride_w = stride;
	sh.pad_h = sh.pad_w = pad;
	sh.dil_h = sh.dil_w = dil;
	sh.groups = groups;
	return sh;
}

// Real layers of CNNs people train (torchvision definitions, 224x224 input unless noted).
std::vector<ShapeDef> shapes()
{
	ConvShape asym = conv(1, 128, 17, 17, 128, 1, 7, 1, 0);
	asym.pad_w = 3;
	ConvShape asym32 = asym;
	asym32.n = 32;
	return {
		{"resnet50-conv1-7x7s2", "ResNet-50 conv1: 7x7/2 3->64, 224x224 -> 112x112",
		 conv(1, 3, 224, 224, 64, 7, 7, 2, 3), true},
		{"resnet50-conv2x-3x3", "ResNet-50 conv2_x: 3x3 64->64, 56x56", conv(1, 64, 56, 56, 64, 3, 3, 1, 1),
		 true},
		{"resnet50-conv2x-1x1", "ResNet-50 conv2_x: 1x1 256->64, 56x56", conv(1, 256, 56, 56, 64, 1, 1, 1, 0),
		 true},
		{"resnet50-conv3x-3x3s2", "ResNet-50 v1.5 conv3_x first block: 3x3/2 128->128, 56x56 -> 28x28",
		 conv(1, 128, 56, 56, 128, 3, 3, 2, 1), true},
		{"resnet50-conv3x-down-1x1s2", "ResNet-50 conv3_x downsample: 1x1/2 256->512, 56x56 -> 28x28",
		 conv(1, 256, 56, 56, 512, 1, 1, 2, 0), false},
		{"resnet50-conv5x-3x3", "ResNet-50 conv5_x: 3x3 512->512, 7x7", conv(1, 512, 7, 7, 512, 3, 3, 1, 1),
		 false},
		{"resnext50-conv2x-g32", "ResNeXt-50 32x4d conv2_x: grouped 3x3 128->128, 32 groups, 56x56",
		 conv(1, 128, 56, 56, 128, 3, 3, 1, 1, 1, 32), true},
		{"mobilenetv2-dw3x3", "MobileNetV2 block 3: depthwise 3x3 144 ch, 56x56",
		 conv(1, 144, 56, 56, 144, 3, 3, 1, 1, 1, 144), true},
		{"mobilenetv2-dw3x3s2", "MobileNetV2 block 2: depthwise 3x3/2 96 ch, 112x112 -> 56x56",
		 conv(1, 96, 112, 112, 96, 3, 3, 2, 1, 1, 96), false},
		{"deeplabv3-dil2-3x3", "DeepLabV3-ResNet-50 layer3: 3x3 dilation 2 256->256, 28x28",
		 conv(1, 256, 28, 28, 256, 3, 3, 1, 2, 2), true},
		{"inception3-5x5", "Inception-v3 Mixed_5b branch5x5_2: 5x5 48->64, 35x35 (odd size)",
		 conv(1, 48, 35, 35, 64, 5, 5, 1, 2), true},
		{"inception3-stem-3x3s2",
		 "Inception-v3 Conv2d_1a: 3x3/2 3->32, 299x299 -> 149x149, no padding (odd size)",
		 conv(1, 3, 299, 299, 32, 3, 3, 2, 0), false},
		{"inception3-1x7", "Inception-v3 Mixed_6b branch7x7_2: 1x7 128->128, 17x17 (odd size, asymmetric)",
		 asym, false},
		{"resnet50-conv2x-3x3-b32", "ResNet-50 conv2_x at training batch 32: 3x3 64->64, 56x56",
		 conv(32, 64, 56, 56, 64, 3, 3, 1, 1), false},
		{"resnet50-conv1-7x7s2-b32", "ResNet-50 conv1 at training batch 32: 7x7/2 3->64, 224x224",
		 conv(32, 3, 224, 224, 64, 7, 7, 2, 3), false},
		{"inception3-1x7-b32", "Inception-v3 Mixed_6b 1x7 at training batch 32, 17x17", asym32, false},
	};
}

CaseDef make(std::string name, CaseKind kind, std::string origin, bool quick)
{
	CaseDef c;
	c.name = std::move(name);
	c.kind = kind;
	c.origin = std::move(origin);
	c.quick = quick;
	return c;
}

std::vector<CaseDef> build()
{
	std::vector<CaseDef> v;
	for (const auto &s : shapes()) {
		for (DType t : {DType::f32, DType::f16}) {
			CaseDef c;
			c.name = fmt::format("conv.{}.{}", s.id, dtype_name(t));
			c.kind = CaseKind::conv2d;
			c.origin = s.origin;
			c.shape = s.shape;
			c.dtype = t;
			c.quick = s.quick;
			v.push_back(c);
		}
	}
	// Memory matrix: the same conv2d with inputs/output in each memory kind.
	const auto all_shapes = shapes();
	const ShapeDef &m = all_shapes[1];
	for (MemPlace p : {MemPlace::host_coherent, MemPlace::host_noncoherent, MemPlace::managed}) {
		for (DType t : {DType::f32, DType::f16}) {
			CaseDef c;
			c.name = fmt::format("mem.{}.{}.{}", mem_place_name(p), m.id, dtype_name(t));
			c.kind = CaseKind::conv2d;
			c.origin = fmt::format("{}; x, w, y in {} memory", m.origin, mem_place_name(p));
			c.shape = m.shape;
			c.dtype = t;
			c.mem = p;
			c.quick = t == DType::f32;
			v.push_back(c);
		}
	}
	v.push_back(make("stream.copy-triad", CaseKind::stream,
			 "BabelStream-style copy and triad (fp64), checked against analytic values, vs device memcpy",
			 true));
	v.push_back(make("capacity", CaseKind::capacity,
			 "allocate and verify --capacity-fraction of the memory the device reports", false));
	{
		CaseDef c = make("transfer.pinned", CaseKind::transfers,
				 "host<->device copies, pinned host memory, 4 KiB..1 GiB", true);
		c.pinned = true;
		v.push_back(c);
	}
	v.push_back(make("transfer.pageable", CaseKind::transfers,
			 "host<->device copies, pageable host memory, 4 KiB..1 GiB", true));
	v.push_back(make("torch.conv2d", CaseKind::torch,
			 "PyTorch F.conv2d on the GPU (MIOpen/cuDNN) vs the CPU; only with --torch or --case", false));
	for (const char *st :
	     {"pass", "fail", "segv", "abort", "hang", "hang-ignore-term", "garbage", "silent-exit", "kmsg"}) {
		CaseDef c = make(fmt::format("selftest.{}", st), CaseKind::selftest,
				 "rdnactl's own isolation/checker test (no GPU)", false);
		c.hidden = true;
		c.shape = conv(2, 8, 13, 11, 6, 3, 3, 1, 1);
		v.push_back(c);
	}
	return v;
}

} // namespace

const char *mem_place_name(MemPlace m)
{
	switch (m) {
	case MemPlace::device:
		return "device";
	case MemPlace::host_coherent:
		return "host-coherent";
	case MemPlace::host_noncoherent:
		return "host-noncoherent";
	case MemPlace::managed:
		return "managed";
	}
	return "?";
}

const std::vector<CaseDef> &all_cases()
{
	static const std::vector<CaseDef> cases = build();
	return cases;
}

const CaseDef *find_case(std::string_view name)
{
	for (const auto &c : all_cases())
		if (c.name == name)
			return &c;
	return nullptr;
}

std::vector<const CaseDef *> select_cases(Selection s)
{
	std::vector<const CaseDef *> out;
	for (const auto &c : all_cases())
		if (!c.hidden && c.kind != CaseKind::torch && (s == Selection::full || c.quick))
			out.push_back(&c);
	return out;
}

std::vector<const CaseDef *> select_named(const std::vector<std::string> &names)
{
	std::vector<const CaseDef *> out;
	for (const auto &n : names) {
		const CaseDef *c = find_case(n);
		if (!c)
			throw std::invalid_argument(
				fmt::format("unknown case '{}'; `rdnactl validate --list` shows the "
					    "valid names",
					    n));
		out.push_back(c);
	}
	return out;
}

std::vector<std::size_t> transfer_sizes(bool full)
{
	std::vector<std::size_t> v;
	const std::size_t top = full ? (std::size_t(1) << 30) : (std::size_t(64) << 20);
	for (std::size_t b = 4096; b <= top; b *= 4)
		v.push_back(b);
	return v;
}

} // namespace rdnafix::validate
