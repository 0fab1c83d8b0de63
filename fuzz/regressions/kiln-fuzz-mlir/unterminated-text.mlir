

func.func @unary_abs_bool(%x: tensor<4xi1>) {
  // expected-error @+1 {{'kiln.unary' op 'abs' expects nТumericттттттттттттттттттттттттт elements}}
  %y = kiln.una