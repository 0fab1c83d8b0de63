#!/usr/bin/env python3
"""Exports the corpus of real networks on the GPU machine (torch,
torchvision and transformers are there; random weights from the library
configs, nothing downloaded) and writes, for each network and exporter,

  OUT/<net>-<exporter>/model.onnx       the export
  OUT/<net>-<exporter>/input_K.npy      the inputs (fixed seed)
  OUT/<net>-<exporter>/output_K.npy     PyTorch fp32's outputs on them
  OUT/<net>-<exporter>/export.json      exporter, opset, IR version, nodes

Exporters: "ts" is torch.onnx.export(dynamo=False, opset_version=17), the
classic TorchScript exporter; "dynamo" is torch.onnx.export(dynamo=True)
at its default opset. --small uses the small configs (2 layers, hidden 64)
that are committed as test cases.

Usage: export-corpus.py OUT [--small] [--only NET,...] [--exporters ts,dynamo]
"""
import argparse
import json
import os
import sys
import time
import traceback

import numpy as np
import onnx
import torch

parser = argparse.ArgumentParser()
parser.add_argument("out")
parser.add_argument("--small", action="store_true")
parser.add_argument("--only", default="")
parser.add_argument("--exporters", default="ts,dynamo")
args = parser.parse_args()
torch.manual_seed(0)


class Wrap(torch.nn.Module):
    """A transformers model with tensor inputs and its first output only."""

    def __init__(self, model, key, names=("input_ids",)):
        super().__init__()
        self.model, self.key, self.names = model, key, names

    def forward(self, *inputs):
        out = self.model(**dict(zip(self.names, inputs)), return_dict=True)
        return out[self.key]


def ids(batch, seq, vocab):
    g = torch.Generator().manual_seed(1)
    return torch.randint(0, vocab, (batch, seq), generator=g)


def image(batch, size):
    g = torch.Generator().manual_seed(1)
    return torch.rand(batch, 3, size, size, generator=g)


DECODER = ("input_ids", "attention_mask")


def ids_and_mask(batch, seq, vocab):
    """Token ids and an attention mask of ones. The decoders take both: with
    ids alone, transformers looks for packed sequences with torch.diff,
    which the TorchScript exporter cannot export."""
    return ids(batch, seq, vocab), torch.ones(batch, seq, dtype=torch.int64)


def hf(name):
    import transformers as t
    small = args.small
    # Small configs have a small vocabulary too: the embedding table is
    # most of a 2-layer model's weights.
    v = {"vocab_size": 1000} if small else {}
    if name == "bert":
        c = t.BertConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=2,
                         intermediate_size=128, **v) if small else t.BertConfig()
        return Wrap(t.BertModel(c), "last_hidden_state"), (ids(1, 128, c.vocab_size),)
    if name == "distilbert":
        c = t.DistilBertConfig(n_layers=2, dim=64, n_heads=2, hidden_dim=128, **v) \
            if small else t.DistilBertConfig()
        return Wrap(t.DistilBertModel(c), "last_hidden_state"), (ids(1, 128, c.vocab_size),)
    if name == "gpt2":
        c = t.GPT2Config(n_layer=2, n_embd=64, n_head=2, **v) if small else t.GPT2Config()
        c.use_cache = False
        return Wrap(t.GPT2Model(c), "last_hidden_state", DECODER), ids_and_mask(1, 128, c.vocab_size)
    if name == "roberta":
        c = t.RobertaConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=2,
                            intermediate_size=128, **v) if small else t.RobertaConfig()
        return Wrap(t.RobertaModel(c), "last_hidden_state"), (ids(1, 128, 1000),)
    if name == "llama":  # RMSNorm, SwiGLU, rotary embeddings, causal mask
        c = t.LlamaConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=2,
                          num_key_value_heads=2, intermediate_size=128, vocab_size=1000) \
            if small else t.LlamaConfig(num_hidden_layers=4, hidden_size=512,
                                        num_attention_heads=8, num_key_value_heads=8,
                                        intermediate_size=1376, vocab_size=32000)
        c.use_cache = False
        return Wrap(t.LlamaModel(c), "last_hidden_state", DECODER), ids_and_mask(1, 128, 1000)
    if name == "t5-encoder":
        c = t.T5Config(num_layers=2, d_model=64, num_heads=2, d_ff=128, d_kv=32, **v) \
            if small else t.T5Config()
        return Wrap(t.T5EncoderModel(c), "last_hidden_state"), (ids(1, 128, 1000),)
    raise KeyError(name)


def random_head(vit):
    """torchvision initializes ViT's classifier to zeros, which would make
    every output 0: random weights instead, so that the output says
    something."""
    torch.nn.init.normal_(vit.heads.head.weight, std=0.02)
    torch.nn.init.normal_(vit.heads.head.bias, std=0.02)
    return vit


def tv(name):
    import torchvision.models as m
    if name == "vit":
        if args.small:
            net = m.VisionTransformer(image_size=32, patch_size=16, num_layers=2,
                                      num_heads=2, hidden_dim=64, mlp_dim=128)
            return random_head(net), (image(1, 32),)
        return random_head(m.vit_b_16(weights=None)), (image(1, 224),)
    net = {"resnet50": m.resnet50, "mobilenetv2": m.mobilenet_v2,
           "efficientnet": m.efficientnet_b0, "convnext": m.convnext_tiny,
           "deeplabv3": m.segmentation.deeplabv3_mobilenet_v3_large}[name]
    kwargs = {"weights_backbone": None} if name == "deeplabv3" else {}
    net = net(weights=None, **kwargs)
    if name == "deeplabv3":
        net = Wrap2(net)
    return net, (image(1, 224),)


class Wrap2(torch.nn.Module):
    """A segmentation model's 'out' map."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


NETS = {"resnet50": tv, "mobilenetv2": tv, "efficientnet": tv, "vit": tv,
        "convnext": tv, "deeplabv3": tv, "bert": hf, "distilbert": hf,
        "gpt2": hf, "roberta": hf, "llama": hf, "t5-encoder": hf}
if args.small:
    NETS = {k: v for k, v in NETS.items()
            if k in ("bert", "distilbert", "gpt2", "vit", "llama", "roberta",
                     "t5-encoder")}
only = [n for n in args.only.split(",") if n]
summary = []
for name, make in NETS.items():
    if only and name not in only:
        continue
    for exporter in args.exporters.split(","):
        d = os.path.join(args.out, f"{name}-{exporter}")
        os.makedirs(d, exist_ok=True)
        row = {"network": name, "exporter": exporter}
        try:
            net, inputs = make(name)
            net.eval()
            with torch.no_grad():
                outputs = net(*inputs)
            outputs = outputs if isinstance(outputs, (tuple, list)) else (outputs,)
            path = os.path.join(d, "model.onnx")
            start = time.time()
            names = [f"input_{k}" for k in range(len(inputs))]
            if exporter == "ts":
                torch.onnx.export(net, inputs, path, dynamo=False, opset_version=17,
                                  input_names=names)
            else:
                torch.onnx.export(net, inputs, path, dynamo=True, input_names=names)
            row["export_s"] = round(time.time() - start, 1)
            model = onnx.load(path, load_external_data=False)
            row["opset"] = next(o.version for o in model.opset_import
                                if o.domain in ("", "ai.onnx"))
            row["ir_version"] = model.ir_version
            row["nodes"] = len(model.graph.node)
            row["inputs"] = [i.name for i in model.graph.input]
            for k, x in enumerate(inputs):
                np.save(os.path.join(d, f"input_{k}.npy"), x.numpy())
            for k, y in enumerate(outputs):
                np.save(os.path.join(d, f"output_{k}.npy"), y.numpy())
        except Exception as e:  # an export failure is a row, not the end
            row["error"] = f"{type(e).__name__}: {e}"[:300]
            traceback.print_exc()
        with open(os.path.join(d, "export.json"), "w") as f:
            json.dump(row, f, indent=1)
        summary.append(row)
        print(json.dumps(row), flush=True)
with open(os.path.join(args.out, "exports.json"), "w") as f:
    json.dump(summary, f, indent=1)
