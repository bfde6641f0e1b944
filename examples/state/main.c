/* Calls the three entry points of examples/state/counter.mlir over one state buffer.
 *
 *   kiln compile examples/state/counter.mlir --emit obj -o counter
 *   cc -I runtime/include -I . examples/state/main.c counter.o -L build/lib \
 *      -lkiln_kernels -lkiln_runtime -lm -o counter_c
 *   ./counter_c
 *
 * The state lives in one caller-owned buffer (COUNTER_STATE_BYTES), zeroed before the first
 * call; each entry point reads and writes the tensors it names in it, at the offsets the
 * header gives. It prints the prediction before init, after init and after two training
 * steps, with each step's loss.
 */
#include <stdio.h>
#include <string.h>

#include "counter.h"
#include "kiln/runtime/api.h"

static int check(int32_t code, const char *what) {
  if (code == KILN_STATUS_OK)
    return 1;
  fprintf(stderr, "error: %s failed: %s\n", what, kiln_status_code_string(code));
  return 0;
}

static int predict(void *state, void *scratch) {
  const float x[4] = {1.0f, 1.0f, 1.0f, 1.0f};
  float y[4];
  const void *inputs[COUNTER_PREDICT_NUM_INPUTS] = {x};
  void *outputs[COUNTER_PREDICT_NUM_OUTPUTS] = {y};
  if (!check(counter_predict(inputs, outputs, state, scratch, NULL), "counter_predict"))
    return 0;
  printf("predict: %g %g %g %g\n", y[0], y[1], y[2], y[3]);
  return 1;
}

int main(void) {
  void *state = kiln_aligned_alloc(COUNTER_STATE_BYTES, COUNTER_STATE_ALIGNMENT);
  void *scratch = kiln_aligned_alloc(COUNTER_SCRATCH_BYTES, COUNTER_SCRATCH_ALIGNMENT);
  int ok = state != NULL && scratch != NULL;
  if (ok)
    memset(state, 0, COUNTER_STATE_BYTES);
  ok = ok && predict(state, scratch);
  ok = ok && check(counter_init(NULL, NULL, state, scratch, NULL), "counter_init");
  ok = ok && predict(state, scratch);
  const float g[4] = {2.0f, 2.0f, 2.0f, 2.0f};
  for (int step = 0; ok && step < 2; ++step) {
    float loss;
    const void *inputs[COUNTER_TRAIN_STEP_NUM_INPUTS] = {g};
    void *outputs[COUNTER_TRAIN_STEP_NUM_OUTPUTS] = {&loss};
    ok = check(counter_train_step(inputs, outputs, state, scratch, NULL), "counter_train_step");
    if (ok)
      printf("train_step: loss %g\n", loss);
  }
  ok = ok && predict(state, scratch);
  if (ok) {
    int32_t steps;
    memcpy(&steps, (const char *)state + COUNTER_STATE_1_OFFSET, sizeof steps);
    printf("steps: %d\n", (int)steps);
  }
  kiln_aligned_free(scratch);
  kiln_aligned_free(state);
  return ok ? 0 : 1;
}
