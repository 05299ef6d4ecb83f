#GPU STUFF
export ROC_ENABLE_PRE_VEGA=1  # Required for gfx803 support
export HSA_OVERRIDE_GFX_VERSION=8.0.3
# Prioritize ROCm-CLR paths
export PATH=/opt/rocm-clr/bin:$PATH  # Use rocm-clr binaries
export LD_LIBRARY_PATH=/opt/rocm-clr/lib:/opt/rocm/lib:/opt/rocm/lib64:$LD_LIBRARY_PATH  # Use rocm-cl>
export OCL_ICD_VENDORS=/opt/rocm-clr/etc/OpenCL/vendors  # rocm-clr ICD vendor files

# Add fallback to standard ROCm paths
export PATH=/opt/rocm/bin:$PATH
export LD_LIBRARY_PATH=/opt/rocm/lib:/opt/rocm/lib64:$LD_LIBRARY_PATH
export OCL_ICD_VENDORS=${OCL_ICD_VENDORS}:/etc/OpenCL/vendors
#END GPU STUFF

export PATH=$PATH:/usr/bin
# ROCm-CLR OpenCL runtime settings

#export PATH=/opt/rocm-clr/bin:$PATH  # Use rocm-clr binaries
#export LD_LIBRARY_PATH=/opt/rocm-clr/lib:$LD_LIBRARY_PATH  # Use rocm-clr libraries
#export OCL_ICD_VENDORS=/opt/rocm-clr/etc/OpenCL/vendors  # rocm-clr ICD vendor files

# Fallback settings (commented for reference)
# export ROC_ENABLE_PRE_VEGA=1
# export PATH=/opt/rocm/bin:$PATH
# export LD_LIBRARY_PATH=/opt/rocm/lib:/opt/rocm/lib64:$LD_LIBRARY_PATH
# export OCL_ICD_VENDORS=/etc/OpenCL/vendors
