"""The papers of the schema-6 store: real abstracts of `extract/training/gold/results_train.jsonl`
(with their gold entities and relations), extracted before extractions held results; the test gives
them their gold results after the migration."""

PAPERS = [
    ('2508.02143',
     'Gait recognition aims to identify individuals based on their body shape and walking patterns. Though '
     'much progress has been achieved driven by deep learning, gait recognition in real-world surveillance '
     'scenarios remains quite challenging to current methods. Conventional approaches, which rely on '
     'periodic gait cycles and controlled environments, struggle with the non-periodic and occluded '
     'silhouette sequences encountered in the wild. In this paper, we propose a novel framework, '
     'TrackletGait, designed to address these challenges in the wild. We propose Random Tracklet Sampling, '
     'a generalization of existing sampling methods, which strikes a balance between robustness and '
     'representation in capturing diverse walking patterns. Next, we introduce Haar Wavelet-based '
     'Downsampling to preserve information during spatial downsampling. Finally, we present a Hardness '
     'Exclusion Triplet Loss, designed to exclude low-quality silhouettes by discarding hard triplet '
     'samples. TrackletGait achieves state-of-the-art results, with 77.8 and 80.4 rank-1 accuracy on the '
     'Gait3D and GREW datasets, respectively, while using only 10.3M backbone parameters. Extensive '
     'experiments are also conducted to further investigate the factors affecting gait recognition in the '
     'wild.',
     [('Gait recognition', 'Task', False), ('gait recognition', 'Task', False),
      ('TrackletGait', 'Method', True), ('Random Tracklet Sampling', 'Method', True),
      ('Haar Wavelet-based Downsampling', 'Method', True),
      ('Hardness Exclusion Triplet Loss', 'Method', True), ('rank-1 accuracy', 'Metric', False),
      ('Gait3D', 'Dataset', False), ('GREW', 'Dataset', False)],
     [('TrackletGait', 'ADDRESSES', 'gait recognition'),
      ('TrackletGait', 'USES', 'Random Tracklet Sampling'),
      ('TrackletGait', 'USES', 'Haar Wavelet-based Downsampling'),
      ('TrackletGait', 'USES', 'Hardness Exclusion Triplet Loss'),
      ('TrackletGait', 'EVALUATED_ON', 'Gait3D'), ('TrackletGait', 'EVALUATED_ON', 'GREW'),
      ('TrackletGait', 'MEASURED_BY', 'rank-1 accuracy')],
     []),
    ('2510.14657',
     'Masked Autoencoder (MAE) pre-training of vision transformers (ViTs) yields strong performance in '
     'low-label regimes but comes with substantial computational costs, making it impractical in time- and '
     'resource-constrained industrial settings. We address this by integrating Decorrelated Backpropagation '
     '(DBP) into MAE pre-training, an optimization method that iteratively reduces input correlations at '
     'each layer to accelerate convergence. Applied selectively to the encoder, DBP achieves faster '
     'pre-training without loss of stability. On ImageNet-1K pre-training with ADE20K fine-tuning, DBP-MAE '
     'reduces wall-clock time to baseline performance by 21.1%, lowers carbon emissions by 21.4% and '
     'improves segmentation mIoU by 1.1 points. We observe similar gains when pre-training and fine-tuning '
     "on proprietary industrial data, confirming the method's applicability in real-world scenarios. These "
     'results demonstrate that DBP can reduce training time and energy use while improving downstream '
     'performance for large-scale ViT pre-training.',
     [('Masked Autoencoder', 'Method', False), ('MAE', 'Method', False),
      ('vision transformers', 'Method', False), ('ViTs', 'Method', False), ('ViT', 'Method', False),
      ('Decorrelated Backpropagation', 'Method', False), ('DBP', 'Method', False),
      ('DBP-MAE', 'Method', True), ('ImageNet-1K', 'Dataset', False), ('ADE20K', 'Dataset', False),
      ('wall-clock time', 'Metric', False), ('carbon emissions', 'Metric', False),
      ('segmentation', 'Task', False), ('mIoU', 'Metric', False), ('training time', 'Metric', False)],
     [('DBP-MAE', 'USES', 'Decorrelated Backpropagation'), ('DBP-MAE', 'USES', 'Masked Autoencoder'),
      ('DBP-MAE', 'USES', 'vision transformers'), ('DBP-MAE', 'EVALUATED_ON', 'ImageNet-1K'),
      ('DBP-MAE', 'EVALUATED_ON', 'ADE20K'), ('DBP-MAE', 'COMPARED_WITH', 'Masked Autoencoder'),
      ('DBP-MAE', 'MEASURED_BY', 'wall-clock time'), ('DBP-MAE', 'MEASURED_BY', 'carbon emissions'),
      ('DBP-MAE', 'MEASURED_BY', 'mIoU'), ('Decorrelated Backpropagation', 'MEASURED_BY', 'training time')],
     [('Masked Autoencoder', 'MAE'), ('vision transformers', 'ViTs'),
      ('Decorrelated Backpropagation', 'DBP')]),
    ('2604.16682',
     'Power has become a central bottleneck for AI inference. This problem is becoming more urgent as '
     'agentic AI emerges as a major workload class, yet prior power-management techniques focus almost '
     'entirely on single-turn LLM serving. Our analysis shows that agentic serving behaves fundamentally '
     'differently: each request carries long-lived context that evolves across tool-interleaved turns, and '
     'lowering GPU frequency can push the system into a thrashing regime where memory pressure sharply '
     'worsens both performance and power efficiency. These observations show that power optimization for '
     'agentic serving requires rethinking. We present KAIROS, a context-aware power optimization system for '
     'agentic AI serving. KAIROS uses agent context as a first-class control signal to jointly manage GPU '
     'frequency, per-instance concurrency, and multi-instance request placement. This enables KAIROS to '
     'save power when memory headroom exists while avoiding thrashing and preserving performance targets. '
     'At a high level, KAIROS tracks requests at agent granularity, adapts local control to context growth '
     'and agent progress, and routes agents across instances to jointly improve power efficiency and memory '
     'stability. Evaluated across diverse software and data engineering agentic tasks, KAIROS achieves an '
     'average of 27% (up to 39.8%) power reduction while meeting the performance targets.',
     [('single-turn LLM serving', 'Task', False), ('agentic serving', 'Task', False),
      ('power optimization', 'Task', False), ('KAIROS', 'Method', True),
      ('agentic AI serving', 'Task', False), ('power efficiency', 'Metric', False),
      ('power reduction', 'Metric', False)],
     [('KAIROS', 'ADDRESSES', 'agentic AI serving'), ('KAIROS', 'ADDRESSES', 'power optimization'),
      ('KAIROS', 'MEASURED_BY', 'power reduction'), ('KAIROS', 'MEASURED_BY', 'power efficiency')],
     []),
]
