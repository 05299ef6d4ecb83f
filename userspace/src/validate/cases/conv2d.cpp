// The conv2d kind: real training layers in f32 and f16 and the memory matrix
// (definitions), their inputs, and the judge (CPU reference + comparator).
// The GPU half of the host side is in gpu_host.cpp; the CPU selftest in selftest.cpp.
#include <chrono>

#include <fmt/format.h>

#include "cases/kinds.hpp"
#include "conv_ref.hpp"

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

} // namespace

std::vector<CaseDef> conv2d_cases()
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
	for (MemKind p : {MemKind::host_coherent, MemKind::host_noncoherent, MemKind::managed}) {
		for (DType t : {DType::f32, DType::f16}) {
			CaseDef c;
			c.name = fmt::format("mem.{}.{}.{}", memkind_name(p), m.id, dtype_name(t));
			c.kind = CaseKind::conv2d;
			c.origin = fmt::format("{}; x, w, y in {} memory", m.origin, memkind_name(p));
			c.shape = m.shape;
			c.dtype = t;
			c.mem = p;
			c.quick = t == DType::f32;
			v.push_back(c);
		}
	}
	return v;
}

ConvInputs conv2d_inputs(const CaseDef &c)
{
	return {random_inputs(c.shape.x_elems(), seed_from_name(c.name + "/x"), c.dtype),
		random_inputs(c.shape.w_elems(), seed_from_name(c.name + "/w"), c.dtype)};
}

ConvJudgement judge_conv2d(const CaseDef &c, std::span<const float> x, std::span<const float> w,
			   std::span<const float> y)
{
	ConvJudgement j;
	const auto t0 = std::chrono::steady_clock::now();
	const auto ref = conv2d_reference(c.shape, x, w);
	j.reference_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	const auto tol = tolerance_for(c.dtype);
	j.metrics = measure(ref.y, ref.absum, y, c.shape.reduction(), tol);
	const auto v = judge(j.metrics, tol);
	CaseResult &r = j.result;
	r.name = c.name;
	r.status = v.pass ? Status::pass : Status::fail;
	r.reason = v.reason;
	r.max_abs = j.metrics.max_abs;
	r.max_rel = j.metrics.max_rel;
	r.rms_range = j.metrics.rms_range;
	return j;
}

} // namespace rdnafix::validate
