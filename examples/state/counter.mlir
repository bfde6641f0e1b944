// A model with state, written as MLIR: the weights `w` and a step counter persist between
// calls of three entry points. `init` writes them, `train_step` reads and updates them and
// returns the loss, `predict` reads the weights. Compile it with
//
//   kiln compile examples/state/counter.mlir --emit obj -o counter
//
// for counter.o and counter.h (counter_init, counter_train_step, counter_predict), or to an
// executable and run one entry point with `./counter --entry predict x.npy` (the state
// starts zeroed). examples/state/main.c calls the three in turn.
kiln.model "counter" {
  kiln.state "w" : tensor<4xf32>
  kiln.state "steps" : tensor<i32>
  kiln.entry "init" = @init feeds [] fetches [] {updates = ["w", "steps"]}
  kiln.entry "train_step" = @train_step feeds [#kiln.tensor<"g:0">]
      fetches [#kiln.tensor<"loss:0">] {state = ["w", "steps"], updates = ["w", "steps"]}
  kiln.entry "predict" = @predict feeds [#kiln.tensor<"x:0">] fetches [#kiln.tensor<"y:0">]
      {state = ["w"]}
}

// w = [1, 2, 3, 4], steps = 0.
func.func @init() -> (tensor<4xf32>, tensor<i32>) {
  %w = "tf.Const"() {dtype = f32, value = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>} : () -> tensor<4xf32>
  %steps = "tf.Const"() {dtype = i32, value = dense<0> : tensor<i32>} : () -> tensor<i32>
  return %w, %steps : tensor<4xf32>, tensor<i32>
}

// loss = sum(w * g), then w -= 0.5 * g and steps += 1.
func.func @train_step(%g: tensor<4xf32>, %w: tensor<4xf32>, %steps: tensor<i32>) -> (tensor<f32>, tensor<4xf32>, tensor<i32>) {
  %product = "tf.Mul"(%w, %g) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %axis = "tf.Const"() {dtype = i32, value = dense<0> : tensor<1xi32>} : () -> tensor<1xi32>
  %loss = "tf.Sum"(%product, %axis) : (tensor<4xf32>, tensor<1xi32>) -> tensor<f32>
  %rate = "tf.Const"() {dtype = f32, value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
  %step = "tf.Mul"(%g, %rate) : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  %next = "tf.Sub"(%w, %step) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %one = "tf.Const"() {dtype = i32, value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %count = "tf.AddV2"(%steps, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
  return %loss, %next, %count : tensor<f32>, tensor<4xf32>, tensor<i32>
}

// y = x * w.
func.func @predict(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
  %y = "tf.Mul"(%x, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
