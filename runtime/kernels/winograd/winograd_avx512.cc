// The Winograd kernel's tile loop with 16-lane transforms (this file is compiled with
// -mavx512f; the dispatcher calls it only on CPUs that have it).
#include "winograd_impl.h"

namespace kiln::kernels::winograd {

void runTilesAvx512(void *ctx, int64_t begin, int64_t end) { runTiles<V16>(ctx, begin, end); }

} // namespace kiln::kernels::winograd
