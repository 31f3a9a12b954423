"""The papers of the schema-13 store, from real abstracts of `../shared/data/arxiv/`: one paper defines
`MS` as mechanical search (2504.20969) and one `RL` as reinforcement learning; the others write `MS COCO`
(2504.10214) and `VLA-RL` (2505.18719) without saying either. Schema 13 counted `MS COCO` as a mention
of mechanical search; schema 14 does not count a short acronym the corpus lookup finds starting another
name (`resolve.modifier_acronym`), and `VLA-RL` (the acronym at the end) still mentions RL. Schema 13
showed the entity written `ViTs` (twice, m5) and `ViT` (once, m6) as `ViTs`; schema 14 shows `ViT`."""

PAPERS = [
    ("m1", "Mechanical search (MS) in cluttered environments remains a significant challenge.",
     [("Mechanical search", "Task", False), ("MS", "Task", False)], [], [("Mechanical search", "MS")]),
    ("m2", "Extensive evaluations on both in-domain (MS COCO and PASCAL VOC) benchmarks.",
     [("MS COCO", "Dataset", False), ("PASCAL VOC", "Dataset", False)], [], []),
    ("m3", "Reinforcement learning (RL) fine-tunes policies.",
     [("Reinforcement learning", "Method", False), ("RL", "Method", False)], [],
     [("Reinforcement learning", "RL")]),
    ("m4", "We present VLA-RL, an algorithmic and systematic framework.",
     [("VLA-RL", "Method", True)], [], []),
    ("m5", "Vision Transformers (ViTs) split images into patches; ViTs scale well.",
     [("Vision Transformers", "Method", False), ("ViTs", "Method", False)], [],
     [("Vision Transformers", "ViTs")]),
    ("m6", "We fine-tune a ViT on ImageNet.",
     [("ViT", "Method", False), ("ImageNet", "Dataset", False)], [], []),
]
