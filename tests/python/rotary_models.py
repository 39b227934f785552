"""Rotary code as users write it, for the tests and the benchmark
(scripts/bench_python.py): an HF-style module and Meta-style functions."""
import torch


class HFRotary(torch.nn.Module):
    """forward(x, position_ids) -> (cos, sin) in x.dtype, as transformers'
    LlamaRotaryEmbedding (default rope type) computes them; WRONG_FROM:
    positions from there on are held in bfloat16 (a classic long-context bug)."""

    def __init__(self, dim, base=500000.0, wrong_from=None):
        super().__init__()
        inv = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
        self.register_buffer("inv_freq", inv, persistent=False)
        self.wrong_from = wrong_from

    def forward(self, x, position_ids):
        pos = position_ids[:, None, :].float()
        if self.wrong_from is not None:
            pos = torch.where(pos >= self.wrong_from, pos.to(torch.bfloat16).float(), pos)
        freqs = (self.inv_freq[None, :, None].float() @ pos).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(x.dtype), emb.sin().to(x.dtype)


def precompute_freqs_cis(dim, end, theta=10000.0):
    """Meta's llama precompute_freqs_cis (complex64 freqs_cis, (end, dim/2))."""
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    return torch.polar(torch.ones_like(freqs), freqs)


def llama3_freqs_cis(dim, end, theta=500000.0):
    """Meta's llama3 form: float32 positions (arange(end, dtype=float32))."""
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device, dtype=torch.float32)
    freqs = torch.outer(t, freqs)
    return torch.polar(torch.ones_like(freqs), freqs)
