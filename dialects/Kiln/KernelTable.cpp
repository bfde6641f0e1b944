//===- KernelTable.cpp - the kernels generated code may call -------------------===//
//
// Each row follows the C declaration in runtime/kernels/include/kiln/kernels/<family>.h;
// the symbols, flag bits and the packed layout come from kiln/runtime/abi.h.
//
//===----------------------------------------------------------------------------===//
#include "dialects/Kiln/KernelTable.h"
#include "dialects/Kiln/KernelShapes.h"

#include "kiln/runtime/abi.h"

#include "llvm/ADT/STLExtras.h"

namespace kiln::dialect {
namespace {

using K = KernelParamKind;
using A = KernelArgKind;

// Parameters and arguments several kernels share.
constexpr KernelParam optionalEpilogue(uint32_t bit) {
  return {"epilogue", K::Epilogue, false, bit};
}
constexpr KernelParam flag(llvm::StringLiteral name, uint32_t bit) {
  return {name, K::Flag, false, bit};
}

// kiln/kernels/matmul.h: c (m x n) = op(a) op(b), or c += it without `overwrite`.
constexpr KernelOperand matmulInputs[] = {{"a", 2}, {"b", -1}}; // b: k x n, or packed (rank 1)
// An output an epilogue writes may be any view of the kernel's result with the same
// channels (the last dimension): the elementwise op's buffer it replaced. Such outputs have
// rank -1 here, and the verifier checks their sizes.
constexpr KernelOperand matmulOutputs[] = {{"c", -1}};
constexpr KernelParam matmulParams[] = {{"m", K::I64},
                                        {"n", K::I64},
                                        {"k", K::I64},
                                        flag("transpose_a", KILN_MATMUL_TRANSPOSE_A),
                                        flag("transpose_b", KILN_MATMUL_TRANSPOSE_B),
                                        flag("overwrite", KILN_MATMUL_OVERWRITE),
                                        flag("packed_b", KILN_MATMUL_PACKED_B),
                                        flag("few_rows", KILN_MATMUL_FEW_ROWS)};
constexpr KernelParam matmulEpilogueParams[] = {{"m", K::I64},
                                                {"n", K::I64},
                                                {"k", K::I64},
                                                flag("transpose_a", KILN_MATMUL_TRANSPOSE_A),
                                                flag("transpose_b", KILN_MATMUL_TRANSPOSE_B),
                                                flag("overwrite", KILN_MATMUL_OVERWRITE),
                                                flag("packed_b", KILN_MATMUL_PACKED_B),
                                                flag("few_rows", KILN_MATMUL_FEW_ROWS),
                                                {"epilogue", K::Epilogue, true, 0}};
// The same by cuBLAS on a GPU partition's device memory (kiln_mgpu_matmul_f32): b as
// stored, never packed.
constexpr KernelOperand gpuMatmulInputs[] = {{"a", 2}, {"b", 2}};
constexpr KernelParam gpuMatmulParams[] = {{"m", K::I64},
                                           {"n", K::I64},
                                           {"k", K::I64},
                                           flag("transpose_a", KILN_MATMUL_TRANSPOSE_A),
                                           flag("transpose_b", KILN_MATMUL_TRANSPOSE_B),
                                           flag("overwrite", KILN_MATMUL_OVERWRITE),
                                           flag("tf32", KILN_MGPU_MATMUL_TF32)};
// The same with an epilogue by cuBLASLt (kiln_mgpu_matmul_epilogue_f32), and with a
// residual connection's addition (kiln_mgpu_matmul_residual_f32): the CPU kernels'
// arguments, in the forms cuBLASLt applies (shapes::gpuMatmulEpilogue checks which).
constexpr KernelOperand gpuMatmulResidualInputs[] = {{"a", 2}, {"b", 2}, {"residual", -1}};
constexpr KernelParam gpuMatmulEpilogueParams[] = {{"m", K::I64},
                                                   {"n", K::I64},
                                                   {"k", K::I64},
                                                   flag("transpose_a", KILN_MATMUL_TRANSPOSE_A),
                                                   flag("transpose_b", KILN_MATMUL_TRANSPOSE_B),
                                                   flag("overwrite", KILN_MATMUL_OVERWRITE),
                                                   flag("tf32", KILN_MGPU_MATMUL_TF32),
                                                   {"epilogue", K::Epilogue, true, 0}};
// The same for f16 operands and results (kiln_mgpu_matmul_f16, f32 sums).
constexpr KernelOperand gpuMatmulF16Inputs[] = {{"a", 2, KernelElement::F16},
                                                {"b", 2, KernelElement::F16}};
constexpr KernelOperand gpuMatmulF16Outputs[] = {{"c", -1, KernelElement::F16}};
constexpr KernelParam gpuMatmulF16Params[] = {{"m", K::I64},
                                              {"n", K::I64},
                                              {"k", K::I64},
                                              flag("transpose_a", KILN_MATMUL_TRANSPOSE_A),
                                              flag("transpose_b", KILN_MATMUL_TRANSPOSE_B),
                                              flag("overwrite", KILN_MATMUL_OVERWRITE)};
// A convolution by cuDNN on a GPU partition's device memory (kiln_mgpu_conv2d_f32): the
// filter in cuDNN's NHWC filter layout, f x kh x kw x c/groups, padding on both sides; its
// epilogue, if any, one cuDNN applies in the same call (shapes::gpuConv2d checks which).
constexpr KernelOperand gpuConvInputs[] = {{"input", 4}, {"filter", 4}};
// The same with a residual connection's addition (kiln_mgpu_conv2d_residual_f32).
constexpr KernelOperand gpuConvResidualInputs[] = {{"input", 4}, {"filter", 4}, {"residual", -1}};
constexpr KernelOperand gpuConvOutputs[] = {{"output", -1}};
constexpr KernelParam gpuConvParams[] = {{"n", K::I64},
                                         {"h", K::I64},
                                         {"w", K::I64},
                                         {"c", K::I64},
                                         {"f", K::I64},
                                         {"kh", K::I64},
                                         {"kw", K::I64},
                                         {"oh", K::I64},
                                         {"ow", K::I64},
                                         {"strides", K::I64Pair},
                                         {"dilations", K::I64Pair},
                                         {"pad", K::I64Pair},
                                         {"groups", K::I64},
                                         flag("overwrite", KILN_MGPU_CONV2D_OVERWRITE),
                                         flag("tf32", KILN_MGPU_CONV2D_TF32),
                                         optionalEpilogue(KILN_MGPU_CONV2D_EPILOGUE)};
constexpr KernelParam gpuConvResidualParams[] = {{"n", K::I64},
                                                 {"h", K::I64},
                                                 {"w", K::I64},
                                                 {"c", K::I64},
                                                 {"f", K::I64},
                                                 {"kh", K::I64},
                                                 {"kw", K::I64},
                                                 {"oh", K::I64},
                                                 {"ow", K::I64},
                                                 {"strides", K::I64Pair},
                                                 {"dilations", K::I64Pair},
                                                 {"pad", K::I64Pair},
                                                 {"groups", K::I64},
                                                 flag("overwrite", KILN_MGPU_CONV2D_OVERWRITE),
                                                 flag("tf32", KILN_MGPU_CONV2D_TF32),
                                                 {"epilogue", K::Epilogue, true, 0}};
constexpr KernelArg gpuConvArgs[] = {{A::Address, "input"},
                                     {A::Address, "filter"},
                                     {A::Address, "output"},
                                     {A::Param, "n"},
                                     {A::Param, "h"},
                                     {A::Param, "w"},
                                     {A::Param, "c"},
                                     {A::Param, "f"},
                                     {A::Param, "kh"},
                                     {A::Param, "kw"},
                                     {A::Param, "oh"},
                                     {A::Param, "ow"},
                                     {A::Param, "strides"},
                                     {A::Param, "dilations"},
                                     {A::Param, "pad"},
                                     {A::Param, "groups"},
                                     {A::Flags},
                                     {A::Epilogue, "epilogue"}};
constexpr KernelArg gpuConvResidualArgs[] = {{A::Address, "input"},
                                             {A::Address, "filter"},
                                             {A::Address, "output"},
                                             {A::Param, "n"},
                                             {A::Param, "h"},
                                             {A::Param, "w"},
                                             {A::Param, "c"},
                                             {A::Param, "f"},
                                             {A::Param, "kh"},
                                             {A::Param, "kw"},
                                             {A::Param, "oh"},
                                             {A::Param, "ow"},
                                             {A::Param, "strides"},
                                             {A::Param, "dilations"},
                                             {A::Param, "pad"},
                                             {A::Param, "groups"},
                                             {A::Flags},
                                             {A::Epilogue, "epilogue"},
                                             {A::Address, "residual"}};
constexpr KernelArg matmulArgs[] = {{A::Address, "a"}, {A::Address, "b"}, {A::Address, "c"},
                                    {A::Param, "m"},   {A::Param, "n"},   {A::Param, "k"},
                                    {A::Flags}};
constexpr KernelArg matmulEpilogueArgs[] = {
    {A::Address, "a"}, {A::Address, "b"}, {A::Address, "c"}, {A::Param, "m"},
    {A::Param, "n"},   {A::Param, "k"},   {A::Flags},        {A::Epilogue, "epilogue"}};
// The same with a residual connection's addition (kiln_kernel_matmul_residual_f32): an
// m x n buffer, or the output itself, added after the epilogue's bias.
constexpr KernelOperand matmulResidualInputs[] = {{"a", 2}, {"b", -1}, {"residual", -1}};
constexpr KernelArg matmulResidualArgs[] = {
    {A::Address, "a"}, {A::Address, "b"},         {A::Address, "c"},
    {A::Param, "m"},   {A::Param, "n"},           {A::Param, "k"},
    {A::Flags},        {A::Epilogue, "epilogue"}, {A::Address, "residual"}};
// A batch of products (kiln_kernel_batch_matmul_f32): a, b and c hold their matrices one
// after the other (any rank, the batch dimensions first); a or b may be one matrix for all.
constexpr KernelOperand batchMatmulInputs[] = {{"a", -1}, {"b", -1}};
constexpr KernelParam batchMatmulParams[] = {{"batch", K::I64},
                                             {"m", K::I64},
                                             {"n", K::I64},
                                             {"k", K::I64},
                                             flag("transpose_a", KILN_MATMUL_TRANSPOSE_A),
                                             flag("transpose_b", KILN_MATMUL_TRANSPOSE_B),
                                             flag("overwrite", KILN_MATMUL_OVERWRITE),
                                             flag("broadcast_a", KILN_MATMUL_BROADCAST_A),
                                             flag("broadcast_b", KILN_MATMUL_BROADCAST_B)};
constexpr KernelArg batchMatmulArgs[] = {{A::Address, "a"},   {A::Address, "b"}, {A::Address, "c"},
                                         {A::Param, "batch"}, {A::Param, "m"},   {A::Param, "n"},
                                         {A::Param, "k"},     {A::Flags}};
// The same by cuBLAS on a GPU (kiln_mgpu_batch_matmul_f32), TF32 allowed or not, and for
// f16 operands and results (kiln_mgpu_batch_matmul_f16).
constexpr KernelParam gpuBatchMatmulParams[] = {{"batch", K::I64},
                                                {"m", K::I64},
                                                {"n", K::I64},
                                                {"k", K::I64},
                                                flag("transpose_a", KILN_MATMUL_TRANSPOSE_A),
                                                flag("transpose_b", KILN_MATMUL_TRANSPOSE_B),
                                                flag("overwrite", KILN_MATMUL_OVERWRITE),
                                                flag("broadcast_a", KILN_MATMUL_BROADCAST_A),
                                                flag("broadcast_b", KILN_MATMUL_BROADCAST_B),
                                                flag("tf32", KILN_MGPU_MATMUL_TF32)};
constexpr KernelOperand gpuBatchMatmulF16Inputs[] = {{"a", -1, KernelElement::F16},
                                                     {"b", -1, KernelElement::F16}};

// kiln/kernels/attention.h: out = softmax(scale * q k^T) v per head; each operand
// [batch, heads, seq, x], or [batch, seq, heads, x] with its *_seq_major flag.
constexpr KernelOperand attentionInputs[] = {{"q", 4}, {"k", 4}, {"v", 4}};
constexpr KernelOperand attentionOutputs[] = {{"out", 4}};
constexpr KernelParam attentionParams[] = {{"batch", K::I64},
                                           {"heads", K::I64},
                                           {"sq", K::I64},
                                           {"sk", K::I64},
                                           {"d", K::I64},
                                           {"dv", K::I64},
                                           {"scale", K::F32},
                                           flag("q_seq_major", KILN_ATTENTION_Q_SEQ_MAJOR),
                                           flag("k_seq_major", KILN_ATTENTION_K_SEQ_MAJOR),
                                           flag("v_seq_major", KILN_ATTENTION_V_SEQ_MAJOR),
                                           flag("out_seq_major", KILN_ATTENTION_OUT_SEQ_MAJOR)};
constexpr KernelArg attentionArgs[] = {
    {A::Address, "q"},   {A::Address, "k"},   {A::Address, "v"},   {A::Address, "out"},
    {A::Param, "batch"}, {A::Param, "heads"}, {A::Param, "sq"},    {A::Param, "sk"},
    {A::Param, "d"},     {A::Param, "dv"},    {A::Param, "scale"}, {A::Flags}};

// The same with an additive mask [1 or batch, 1 or heads, 1 or sq, sk], its strides 0
// where it broadcasts.
constexpr KernelOperand attentionMaskedInputs[] = {{"q", 4}, {"k", 4}, {"v", 4}, {"mask", 4}};
constexpr KernelParam attentionMaskedParams[] = {
    {"batch", K::I64},
    {"heads", K::I64},
    {"sq", K::I64},
    {"sk", K::I64},
    {"d", K::I64},
    {"dv", K::I64},
    {"scale", K::F32},
    {"mask_batch_stride", K::I64},
    {"mask_head_stride", K::I64},
    {"mask_row_stride", K::I64},
    flag("q_seq_major", KILN_ATTENTION_Q_SEQ_MAJOR),
    flag("k_seq_major", KILN_ATTENTION_K_SEQ_MAJOR),
    flag("v_seq_major", KILN_ATTENTION_V_SEQ_MAJOR),
    flag("out_seq_major", KILN_ATTENTION_OUT_SEQ_MAJOR)};
constexpr KernelArg attentionMaskedArgs[] = {{A::Address, "q"},
                                             {A::Address, "k"},
                                             {A::Address, "v"},
                                             {A::Address, "mask"},
                                             {A::Address, "out"},
                                             {A::Param, "batch"},
                                             {A::Param, "heads"},
                                             {A::Param, "sq"},
                                             {A::Param, "sk"},
                                             {A::Param, "d"},
                                             {A::Param, "dv"},
                                             {A::Param, "scale"},
                                             {A::Param, "mask_batch_stride"},
                                             {A::Param, "mask_head_stride"},
                                             {A::Param, "mask_row_stride"},
                                             {A::Flags}};

// kiln/kernels/depthwise.h: input n x h x w x c, filter kh x kw x c x m, output
// n x oh x ow x c x m (or n x oh x ow x c·m, the view an epilogue writes).
constexpr KernelOperand depthwiseInputs[] = {{"input", 4}, {"filter", 4}};
constexpr KernelOperand depthwiseOutputs[] = {{"output", -1}};
constexpr KernelParam depthwiseParams[] = {{"n", K::I64},
                                           {"h", K::I64},
                                           {"w", K::I64},
                                           {"c", K::I64},
                                           {"m", K::I64},
                                           {"kh", K::I64},
                                           {"kw", K::I64},
                                           {"oh", K::I64},
                                           {"ow", K::I64},
                                           {"strides", K::I64Pair},
                                           {"dilations", K::I64Pair},
                                           {"pad", K::I64Pair},
                                           flag("overwrite", KILN_DEPTHWISE_OVERWRITE),
                                           optionalEpilogue(KILN_DEPTHWISE_EPILOGUE)};
constexpr KernelArg depthwiseArgs[] = {
    {A::Address, "input"},    {A::Address, "filter"},  {A::Address, "output"}, {A::Param, "n"},
    {A::Param, "h"},          {A::Param, "w"},         {A::Param, "c"},        {A::Param, "m"},
    {A::Param, "kh"},         {A::Param, "kw"},        {A::Param, "oh"},       {A::Param, "ow"},
    {A::Param, "strides"},    {A::Param, "dilations"}, {A::Param, "pad"},      {A::Flags},
    {A::Epilogue, "epilogue"}};

// A 1x1 convolution (input (n·h·w) x cin times weights cin x c, with its own epilogue) and
// the depthwise convolution (multiplier 1) of its result, in one; it always overwrites.
constexpr KernelOperand pointwiseDepthwiseInputs[] = {{"input", 2}, {"weights", 2}, {"filter", 4}};
constexpr KernelParam pointwiseDepthwiseParams[] = {{"n", K::I64},
                                                    {"h", K::I64},
                                                    {"w", K::I64},
                                                    {"cin", K::I64},
                                                    {"c", K::I64},
                                                    {"kh", K::I64},
                                                    {"kw", K::I64},
                                                    {"oh", K::I64},
                                                    {"ow", K::I64},
                                                    {"strides", K::I64Pair},
                                                    {"dilations", K::I64Pair},
                                                    {"pad", K::I64Pair},
                                                    {"pointwise_epilogue", K::Epilogue, false, 0},
                                                    optionalEpilogue(KILN_DEPTHWISE_EPILOGUE)};
constexpr KernelArg pointwiseDepthwiseArgs[] = {{A::Address, "input"},
                                                {A::Address, "weights"},
                                                {A::Address, "filter"},
                                                {A::Address, "output"},
                                                {A::Param, "n"},
                                                {A::Param, "h"},
                                                {A::Param, "w"},
                                                {A::Param, "cin"},
                                                {A::Param, "c"},
                                                {A::Param, "kh"},
                                                {A::Param, "kw"},
                                                {A::Param, "oh"},
                                                {A::Param, "ow"},
                                                {A::Param, "strides"},
                                                {A::Param, "dilations"},
                                                {A::Param, "pad"},
                                                {A::Flags},
                                                {A::Epilogue, "pointwise_epilogue"},
                                                {A::Epilogue, "epilogue"}};

// kiln/kernels/conv2d.h: input n x h x w x c, filter kh x kw x c x f, output n x oh x ow x f
// (n x oh/2 x ow/2 x f with `max_pool`).
constexpr KernelOperand convInputs[] = {{"input", 4}, {"filter", 4}};
constexpr KernelOperand convOutputs[] = {{"output", -1}};
constexpr KernelParam conv3x3Params[] = {{"n", K::I64},
                                         {"h", K::I64},
                                         {"w", K::I64},
                                         {"c", K::I64},
                                         {"f", K::I64},
                                         {"oh", K::I64},
                                         {"ow", K::I64},
                                         {"pad", K::I64Pair},
                                         flag("overwrite", KILN_CONV2D_OVERWRITE),
                                         flag("max_pool", KILN_CONV2D_MAX_POOL),
                                         optionalEpilogue(KILN_CONV2D_EPILOGUE)};
constexpr KernelArg conv3x3Args[] = {
    {A::Address, "input"},    {A::Address, "filter"}, {A::Address, "output"}, {A::Param, "n"},
    {A::Param, "h"},          {A::Param, "w"},        {A::Param, "c"},        {A::Param, "f"},
    {A::Param, "oh"},         {A::Param, "ow"},       {A::Param, "pad"},      {A::Flags},
    {A::Epilogue, "epilogue"}};
// The Winograd kernel with its transformed filter cached (kiln-lower-pack-weights): the
// cache slot is a model global of one i64 the kernel writes on its first call.
constexpr KernelOperand conv3x3CachedInputs[] = {
    {"input", 4}, {"filter", 4}, {"cache", 1, KernelElement::Any}};
constexpr KernelArg conv3x3CachedArgs[] = {{A::Address, "input"},
                                           {A::Address, "filter"},
                                           {A::Address, "cache"},
                                           {A::Address, "output"},
                                           {A::Param, "n"},
                                           {A::Param, "h"},
                                           {A::Param, "w"},
                                           {A::Param, "c"},
                                           {A::Param, "f"},
                                           {A::Param, "oh"},
                                           {A::Param, "ow"},
                                           {A::Param, "pad"},
                                           {A::Flags},
                                           {A::Epilogue, "epilogue"}};
constexpr KernelParam convDirectParams[] = {{"n", K::I64},
                                            {"h", K::I64},
                                            {"w", K::I64},
                                            {"c", K::I64},
                                            {"f", K::I64},
                                            {"kh", K::I64},
                                            {"kw", K::I64},
                                            {"oh", K::I64},
                                            {"ow", K::I64},
                                            {"strides", K::I64Pair},
                                            {"dilations", K::I64Pair},
                                            {"pad", K::I64Pair},
                                            flag("overwrite", KILN_CONV2D_OVERWRITE),
                                            flag("max_pool", KILN_CONV2D_MAX_POOL),
                                            optionalEpilogue(KILN_CONV2D_EPILOGUE)};
constexpr KernelArg convDirectArgs[] = {
    {A::Address, "input"},    {A::Address, "filter"},  {A::Address, "output"}, {A::Param, "n"},
    {A::Param, "h"},          {A::Param, "w"},         {A::Param, "c"},        {A::Param, "f"},
    {A::Param, "kh"},         {A::Param, "kw"},        {A::Param, "oh"},       {A::Param, "ow"},
    {A::Param, "strides"},    {A::Param, "dilations"}, {A::Param, "pad"},      {A::Flags},
    {A::Epilogue, "epilogue"}};
// kiln_kernel_conv2d_gemm_f32: the direct kernel's parameters, a filter that may be packed
// (kiln-lower-pack-weights), and no max pool.
constexpr KernelOperand convGemmInputs[] = {{"input", 4}, {"filter", -1}};
constexpr KernelParam convGemmParams[] = {{"n", K::I64},
                                          {"h", K::I64},
                                          {"w", K::I64},
                                          {"c", K::I64},
                                          {"f", K::I64},
                                          {"kh", K::I64},
                                          {"kw", K::I64},
                                          {"oh", K::I64},
                                          {"ow", K::I64},
                                          {"strides", K::I64Pair},
                                          {"dilations", K::I64Pair},
                                          {"pad", K::I64Pair},
                                          flag("overwrite", KILN_CONV2D_OVERWRITE),
                                          flag("packed_filter", KILN_CONV2D_PACKED_FILTER),
                                          optionalEpilogue(KILN_CONV2D_EPILOGUE)};

// kiln/kernels/pool.h: input n x h x w x c, output n x oh x ow x c, written whole.
constexpr KernelOperand poolInputs[] = {{"input", 4}};
constexpr KernelOperand poolOutputs[] = {{"output", 4}};
constexpr KernelParam maxPoolParams[] = {
    {"n", K::I64},          {"h", K::I64},           {"w", K::I64},
    {"c", K::I64},          {"oh", K::I64},          {"ow", K::I64},
    {"window", K::I64Pair}, {"strides", K::I64Pair}, {"pad", K::I64Pair}};
constexpr KernelArg maxPoolArgs[] = {
    {A::Address, "input"}, {A::Address, "output"}, {A::Param, "n"},  {A::Param, "h"},
    {A::Param, "w"},       {A::Param, "c"},        {A::Param, "oh"}, {A::Param, "ow"},
    {A::Param, "window"},  {A::Param, "strides"},  {A::Param, "pad"}};

// kiln/kernels/linalg.h: batches of matrices, one after the other (any rank: the shapes
// verifier checks their sizes), of floats of one type E; `ok` holds an i32 per matrix.
template <KernelElement E> constexpr KernelOperand linalgA[] = {{"a", -1, E}};
template <KernelElement E>
constexpr KernelOperand linalgSolveInputs[] = {{"a", -1, E}, {"rhs", -1, E}};
template <KernelElement E>
constexpr KernelOperand tridiagonalInputs[] = {{"diagonals", -1, E}, {"rhs", -1, E}};
template <KernelElement E> constexpr KernelOperand choleskyOutputs[] = {{"l", -1, E}};
template <KernelElement E>
constexpr KernelOperand inverseOutputs[] = {{"inverse", -1, E}, {"ok", -1, KernelElement::I32}};
template <KernelElement E>
constexpr KernelOperand solveOutputs[] = {{"x", -1, E}, {"ok", -1, KernelElement::I32}};
template <KernelElement E> constexpr KernelOperand xOutputs[] = {{"x", -1, E}};
template <KernelElement E> constexpr KernelOperand qrOutputs[] = {{"q", -1, E}, {"r", -1, E}};
template <KernelElement E>
constexpr KernelOperand eigOutputs[] = {{"e", -1, E}, {"v", -1, E}, {"ok", -1, KernelElement::I32}};
template <KernelElement E>
constexpr KernelOperand eigenvaluesOutputs[] = {{"e", -1, E}, {"ok", -1, KernelElement::I32}};
template <KernelElement E>
constexpr KernelOperand svdOutputs[] = {{"s", -1, E}, {"u", -1, E}, {"v", -1, E}};
template <KernelElement E> constexpr KernelOperand singularValuesOutputs[] = {{"s", -1, E}};
constexpr KernelParam squareParams[] = {{"batch", K::I64}, {"n", K::I64}};
constexpr KernelParam inverseParams[] = {
    {"batch", K::I64}, {"n", K::I64}, flag("adjoint", KILN_LINALG_ADJOINT)};
constexpr KernelParam solveParams[] = {
    {"batch", K::I64}, {"n", K::I64}, {"k", K::I64}, flag("adjoint", KILN_LINALG_ADJOINT)};
constexpr KernelParam triangularSolveParams[] = {{"batch", K::I64},
                                                 {"n", K::I64},
                                                 {"k", K::I64},
                                                 flag("adjoint", KILN_LINALG_ADJOINT),
                                                 flag("lower", KILN_LINALG_LOWER)};
constexpr KernelParam rectangularParams[] = {{"batch", K::I64},
                                             {"m", K::I64},
                                             {"n", K::I64},
                                             flag("full_matrices", KILN_LINALG_FULL_MATRICES)};
constexpr KernelParam tridiagonalParams[] = {
    {"batch", K::I64},
    {"m", K::I64},
    {"k", K::I64},
    flag("partial_pivoting", KILN_LINALG_PARTIAL_PIVOTING)};
constexpr KernelArg choleskyArgs[] = {
    {A::Address, "a"}, {A::Address, "l"}, {A::Param, "batch"}, {A::Param, "n"}};
constexpr KernelArg inverseArgs[] = {{A::Address, "a"},  {A::Address, "inverse"},
                                     {A::Address, "ok"}, {A::Param, "batch"},
                                     {A::Param, "n"},    {A::Flags}};
constexpr KernelArg solveArgs[] = {{A::Address, "a"},  {A::Address, "rhs"}, {A::Address, "x"},
                                   {A::Address, "ok"}, {A::Param, "batch"}, {A::Param, "n"},
                                   {A::Param, "k"},    {A::Flags}};
constexpr KernelArg triangularSolveArgs[] = {
    {A::Address, "a"}, {A::Address, "rhs"}, {A::Address, "x"}, {A::Param, "batch"},
    {A::Param, "n"},   {A::Param, "k"},     {A::Flags}};
constexpr KernelArg qrArgs[] = {{A::Address, "a"},   {A::Address, "q"}, {A::Address, "r"},
                                {A::Param, "batch"}, {A::Param, "m"},   {A::Param, "n"},
                                {A::Flags}};
constexpr KernelArg eigArgs[] = {{A::Address, "a"},  {A::Address, "e"},   {A::Address, "v"},
                                 {A::Address, "ok"}, {A::Param, "batch"}, {A::Param, "n"}};
constexpr KernelArg eigenvaluesArgs[] = {
    {A::Address, "a"}, {A::Address, "e"}, {A::Address, "ok"}, {A::Param, "batch"}, {A::Param, "n"}};
constexpr KernelArg svdArgs[] = {{A::Address, "a"}, {A::Address, "s"},   {A::Address, "u"},
                                 {A::Address, "v"}, {A::Param, "batch"}, {A::Param, "m"},
                                 {A::Param, "n"},   {A::Flags}};
constexpr KernelArg singularValuesArgs[] = {
    {A::Address, "a"}, {A::Address, "s"}, {A::Param, "batch"}, {A::Param, "m"}, {A::Param, "n"}};
constexpr KernelArg tridiagonalArgs[] = {
    {A::Address, "diagonals"}, {A::Address, "rhs"}, {A::Address, "x"}, {A::Param, "batch"},
    {A::Param, "m"},           {A::Param, "k"},     {A::Flags}};

// kiln/runtime/partitions.h: the bytes of a buffer sent to or received from another
// partition under the key numbered `key` (kiln-lower-rendezvous-calls numbers them).
constexpr KernelOperand transferBuffer[] = {{"buffer", -1, KernelElement::Any}};
constexpr KernelParam transferParams[] = {{"key", K::I32}};
constexpr KernelArg transferArgs[] = {
    {A::Param, "key"}, {A::Address, "buffer"}, {A::ByteSize, "buffer"}};

// A row of a linear-algebra kernel (kiln/kernels/linalg.h): Kiln's, on the calling
// thread, its outputs written whole.
constexpr KernelInfo linalgRow(llvm::StringLiteral name, llvm::StringLiteral symbol,
                               llvm::ArrayRef<KernelOperand> inputs,
                               llvm::ArrayRef<KernelOperand> outputs,
                               llvm::ArrayRef<KernelParam> params, llvm::ArrayRef<KernelArg> args) {
  return {name,   symbol, KernelLibrary::Kiln, false, "", inputs, outputs,
          params, args,   shapes::linalg};
}
// The rows of elements E, named BASE_SUFFIX (the C function kiln_kernel_BASE_SUFFIX).
#define KILN_LINALG_ROW(BASE, SUFFIX, ...)                                                         \
  linalgRow(BASE "_" SUFFIX, KILN_KERNEL_PREFIX BASE "_" SUFFIX, __VA_ARGS__)
#define KILN_LINALG_ROWS(E, S)                                                                     \
  KILN_LINALG_ROW("cholesky", S, linalgA<E>, choleskyOutputs<E>, squareParams, choleskyArgs),      \
      KILN_LINALG_ROW("matrix_inverse", S, linalgA<E>, inverseOutputs<E>, inverseParams,           \
                      inverseArgs),                                                                \
      KILN_LINALG_ROW("matrix_solve", S, linalgSolveInputs<E>, solveOutputs<E>, solveParams,       \
                      solveArgs),                                                                  \
      KILN_LINALG_ROW("triangular_solve", S, linalgSolveInputs<E>, xOutputs<E>,                    \
                      triangularSolveParams, triangularSolveArgs),                                 \
      KILN_LINALG_ROW("qr", S, linalgA<E>, qrOutputs<E>, rectangularParams, qrArgs),               \
      KILN_LINALG_ROW("self_adjoint_eig", S, linalgA<E>, eigOutputs<E>, squareParams, eigArgs),    \
      KILN_LINALG_ROW("eigenvalues", S, linalgA<E>, eigenvaluesOutputs<E>, squareParams,           \
                      eigenvaluesArgs),                                                            \
      KILN_LINALG_ROW("svd", S, linalgA<E>, svdOutputs<E>, rectangularParams, svdArgs),            \
      KILN_LINALG_ROW("singular_values", S, linalgA<E>, singularValuesOutputs<E>,                  \
                      rectangularParams, singularValuesArgs),                                      \
      KILN_LINALG_ROW("tridiagonal_solve", S, tridiagonalInputs<E>, xOutputs<E>,                   \
                      tridiagonalParams, tridiagonalArgs)

// The kernels of libkiln_kernels.a but the linear-algebra ones take their thread budget
// from the run options.
constexpr KernelInfo table[] = {
    KILN_LINALG_ROWS(KernelElement::F32, "f32"),
    KILN_LINALG_ROWS(KernelElement::F64, "f64"),
    {"matmul_f32", KILN_KERNEL_MATMUL_F32, KernelLibrary::Kiln, true, "overwrite", matmulInputs,
     matmulOutputs, matmulParams, matmulArgs, shapes::matmul},
    {"matmul_epilogue_f32", KILN_KERNEL_MATMUL_EPILOGUE_F32, KernelLibrary::Kiln, true, "overwrite",
     matmulInputs, matmulOutputs, matmulEpilogueParams, matmulEpilogueArgs, shapes::matmul},
    {"matmul_residual_f32", KILN_KERNEL_MATMUL_RESIDUAL_F32, KernelLibrary::Kiln, true, "overwrite",
     matmulResidualInputs, matmulOutputs, matmulEpilogueParams, matmulResidualArgs,
     shapes::matmulResidual},
    {"batch_matmul_f32", KILN_KERNEL_BATCH_MATMUL_F32, KernelLibrary::Kiln, true, "overwrite",
     batchMatmulInputs, matmulOutputs, batchMatmulParams, batchMatmulArgs, shapes::batchMatmul},
    {"attention_f32", KILN_KERNEL_ATTENTION_F32, KernelLibrary::Kiln, true, "", attentionInputs,
     attentionOutputs, attentionParams, attentionArgs, shapes::attention},
    {"attention_masked_f32", KILN_KERNEL_ATTENTION_MASKED_F32, KernelLibrary::Kiln, true, "",
     attentionMaskedInputs, attentionOutputs, attentionMaskedParams, attentionMaskedArgs,
     shapes::attention},
    {"depthwise_conv2d_f32", KILN_KERNEL_DEPTHWISE_CONV2D_F32, KernelLibrary::Kiln, true,
     "overwrite", depthwiseInputs, depthwiseOutputs, depthwiseParams, depthwiseArgs,
     shapes::depthwise},
    {"pointwise_depthwise_f32", KILN_KERNEL_POINTWISE_DEPTHWISE_F32, KernelLibrary::Kiln, true, "",
     pointwiseDepthwiseInputs, depthwiseOutputs, pointwiseDepthwiseParams, pointwiseDepthwiseArgs,
     shapes::pointwiseDepthwise},
    {"conv2d_3x3_f32", KILN_KERNEL_CONV2D_3X3_F32, KernelLibrary::Kiln, true, "overwrite",
     convInputs, convOutputs, conv3x3Params, conv3x3Args, shapes::conv2d3x3},
    {"conv2d_3x3_cached_f32", KILN_KERNEL_CONV2D_3X3_CACHED_F32, KernelLibrary::Kiln, true,
     "overwrite", conv3x3CachedInputs, convOutputs, conv3x3Params, conv3x3CachedArgs,
     shapes::conv2d3x3},
    {"conv2d_direct_f32", KILN_KERNEL_CONV2D_DIRECT_F32, KernelLibrary::Kiln, true, "overwrite",
     convInputs, convOutputs, convDirectParams, convDirectArgs, shapes::conv2dDirect},
    {"conv2d_gemm_f32", KILN_KERNEL_CONV2D_GEMM_F32, KernelLibrary::Kiln, true, "overwrite",
     convGemmInputs, convOutputs, convGemmParams, convDirectArgs, shapes::conv2dGemm},
    {"max_pool2d_f32", KILN_KERNEL_MAX_POOL2D_F32, KernelLibrary::Kiln, true, "", poolInputs,
     poolOutputs, maxPoolParams, maxPoolArgs, shapes::maxPool},
    {"partition_send",
     KILN_PARTITION_SEND,
     KernelLibrary::Runtime,
     false,
     "",
     transferBuffer,
     {},
     transferParams,
     transferArgs},
    {"partition_recv",
     KILN_PARTITION_RECV,
     KernelLibrary::Runtime,
     false,
     "",
     {},
     transferBuffer,
     transferParams,
     transferArgs},
    {"gpu_matmul_f32", KILN_MGPU_MATMUL_F32, KernelLibrary::CuBLAS, false, "overwrite",
     gpuMatmulInputs, matmulOutputs, gpuMatmulParams, matmulArgs, shapes::matmul},
    {"gpu_matmul_epilogue_f32", KILN_MGPU_MATMUL_EPILOGUE_F32, KernelLibrary::CuBLASLt, false,
     "overwrite", gpuMatmulInputs, matmulOutputs, gpuMatmulEpilogueParams, matmulEpilogueArgs,
     shapes::gpuMatmulEpilogue},
    {"gpu_matmul_residual_f32", KILN_MGPU_MATMUL_RESIDUAL_F32, KernelLibrary::CuBLASLt, false,
     "overwrite", gpuMatmulResidualInputs, matmulOutputs, gpuMatmulEpilogueParams,
     matmulResidualArgs, shapes::gpuMatmulResidual},
    {"gpu_batch_matmul_f32", KILN_MGPU_BATCH_MATMUL_F32, KernelLibrary::CuBLAS, false, "overwrite",
     batchMatmulInputs, matmulOutputs, gpuBatchMatmulParams, batchMatmulArgs, shapes::batchMatmul},
    {"gpu_matmul_f16", KILN_MGPU_MATMUL_F16, KernelLibrary::CuBLAS, false, "overwrite",
     gpuMatmulF16Inputs, gpuMatmulF16Outputs, gpuMatmulF16Params, matmulArgs, shapes::matmul},
    {"gpu_batch_matmul_f16", KILN_MGPU_BATCH_MATMUL_F16, KernelLibrary::CuBLAS, false, "overwrite",
     gpuBatchMatmulF16Inputs, gpuMatmulF16Outputs, batchMatmulParams, batchMatmulArgs,
     shapes::batchMatmul},
    {"gpu_conv2d_f32", KILN_MGPU_CONV2D_F32, KernelLibrary::CuDNN, false, "overwrite",
     gpuConvInputs, gpuConvOutputs, gpuConvParams, gpuConvArgs, shapes::gpuConv2d},
    {"gpu_conv2d_residual_f32", KILN_MGPU_CONV2D_RESIDUAL_F32, KernelLibrary::CuDNN, false,
     "overwrite", gpuConvResidualInputs, gpuConvOutputs, gpuConvResidualParams, gpuConvResidualArgs,
     shapes::gpuConv2dResidual},
    {"gpu_partition_send",
     KILN_MGPU_PARTITION_SEND,
     KernelLibrary::GpuRuntime,
     false,
     "",
     transferBuffer,
     {},
     transferParams,
     transferArgs},
    {"gpu_partition_recv",
     KILN_MGPU_PARTITION_RECV,
     KernelLibrary::GpuRuntime,
     false,
     "",
     {},
     transferBuffer,
     transferParams,
     transferArgs},
};

int indexOf(llvm::ArrayRef<KernelOperand> operands, llvm::StringRef role) {
  for (auto [i, operand] : llvm::enumerate(operands))
    if (operand.role == role)
      return static_cast<int>(i);
  return -1;
}

} // namespace

const KernelParam *KernelInfo::findParam(llvm::StringRef name) const {
  for (const KernelParam &param : params)
    if (param.name == name)
      return &param;
  return nullptr;
}

int KernelInfo::inputIndex(llvm::StringRef role) const { return indexOf(inputs, role); }

int KernelInfo::outputIndex(llvm::StringRef role) const { return indexOf(outputs, role); }

const KernelInfo *lookupKernel(llvm::StringRef name) {
  for (const KernelInfo &info : table)
    if (info.name == name)
      return &info;
  return nullptr;
}

llvm::ArrayRef<KernelInfo> kernels() { return table; }

bool symbolUsesThreadPool(llvm::StringRef symbol) {
  return llvm::any_of(
      table, [&](const KernelInfo &info) { return info.threadPool && info.symbol == symbol; });
}

const LibraryInfo &libraryInfo(KernelLibrary library) {
  using W = LibraryInfo::Workspace;
  // In KernelLibrary's order.
  static const LibraryInfo libraries[] = {
      {"Kiln", false},
      {"Kiln runtime", false},
      {"Kiln GPU runtime", true},
      {"cuBLAS", true, W::Own},
      {"cuBLASLt", true, W::Fixed, KILN_GPU_BLASLT_WORKSPACE},
      {"cuDNN", true, W::AtMost, KILN_GPU_DNN_MAX_WORKSPACE},
  };
  return libraries[static_cast<size_t>(library)];
}

std::optional<LibraryInfo> gpuLibraryOf(llvm::StringRef kernel) {
  const KernelInfo *info = lookupKernel(kernel);
  if (!info || libraryInfo(info->library).workspace == LibraryInfo::Workspace::None)
    return std::nullopt;
  return libraryInfo(info->library);
}

int64_t packedMatmulBSize(int64_t k, int64_t n) { return k * kiln_matmul_packed_b_width(n); }

int64_t packedMatmulBIndex(int64_t row, int64_t col, int64_t k, int64_t n) {
  return kiln_matmul_packed_b_index(row, col, k, n);
}

int64_t matmulDepthSlice() { return KILN_MATMUL_PACK_DEPTH; }

int64_t matmulFewRows() { return KILN_MATMUL_FEW_ROWS_MAX; }

} // namespace kiln::dialect
