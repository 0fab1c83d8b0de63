#!/usr/bin/env python3
"""Prints a ModelProto in protobuf text whose graph nests DEPTH subgraphs
(If nodes with a then_branch), to test protobuf's recursion limit."""
import sys

depth = int(sys.argv[1])
inner = 'name: "g" node { input: "x" output: "y" op_type: "Relu" }'
for _ in range(depth):
    inner = ('name: "g" node { input: "c" output: "y" op_type: "If" '
             'attribute { name: "then_branch" type: GRAPH g { %s } } }' % inner)
print('ir_version: 8 opset_import { domain: "" version: 13 } graph { %s '
      'input { name: "c" type { tensor_type { elem_type: 9 shape { } } } } '
      'output { name: "y" type { tensor_type { elem_type: 1 } } } }' % inner)
