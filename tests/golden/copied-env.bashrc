# ~/.bashrc block as guides have users write it: variables that do nothing on
# ROCm, misspelt names, an allocator configuration PyTorch rejects, and the
# shell syntax around them (rdnactl status --env; docs/checks.md RDNA-ENV-014..016).
if [ -d /opt/rocm ]; then
    export ROCM_PATH=/opt/rocm; export PATH="$ROCM_PATH/bin:$PATH"
fi
alias webui='cd ~/stable-diffusion-webui && ./webui.sh'
set -o vi
export HSA_OVERIDE_GFX_VERSION=10.3.0          # typo: ROCr never sees it
export CUDA_LAUNCH_BLOCKING=1                   # CUDA only
export PYTORCH_ROCM_ARCH="gfx1031"              # build time only
export TF_FORCE_GPU_ALLOW_GROWTH=true
export PYTORCH_HIP_ALLOC_CONFIG=garbage_collection_threshold:0.6
export PYTORCH_CUDA_ALLOC_CONF="max_split_size:512,expandable_segments:true"
source ~/venv/bin/activate
