# Variables guides tell RDNA users to copy (issue 20's list) and a relevant name no table has:
# each is listed and judged by the variables table (docs/knowledge.md "Variables";
# docs/checks.md RDNA-ENV-008, 014, 016, 019..022).
export TORCH_USE_HIP_DSA=1
export ROCBLAS_USE_HIPBLASLT=1
export DEVICE_LIB_PATH=/opt/rocm/amdgcn/bitcode
export HIP_DEVICE_LIB_PATH=/opt/rocm/amdgcn/bitcode
export PYTORCH_MAX_SPLIT_SIZE_MB=512
export HSA_USE_SVM=0
export MIOPEN_DEVICE_ARCH=gfx1030
export AMD_LOG_LEVEL=4
export PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb=512
export HSA_ENABLE_SDMA=false
export FLASH_ATTENTION_TRITON_AMD_ENABLE=1
export HCC_HOME=/opt/rocm/hcc
export HSA_FOO=1
