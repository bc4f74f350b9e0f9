"""What the universal-approximation claims share: the papers and the provenance of their
constructions (most are reconstructed: see shared/papers/yun_fang.md)."""

YA = "Yun et al. 2020a"
YB = "Yun et al. 2020b"
FANG = "Fang et al. 2022"
KS = "Kajitsuka & Sato 2024"

L6_PROV = ("statement (transformers compute contextual mappings) verified from the abstract; "
           "Lemma 6's layers, constants and property list recalled [M] and reconstructed by us, "
           "checked exhaustively [N]")
SPARSE_PROV = ("O(n)-connection universality verified from the abstract; Assumption 1 and the "
               "pattern index sets recalled [M]; sparse selective-shift construction ours [O]")
FANG_PROV = ("claim verified from the abstract (L blocks give every degree-L polynomial with "
             "zero error; no bias/sample trade-off); the block construction is OURS [O], the "
             "paper's was not retrieved")
