"""The nets that ship with the engine: NAME.onnx (what the engine plays with), NAME.safetensors
(its weights-only training checkpoint, for `gomoku train --init`) and manifest.json (what each
file is, how it was trained and how strong it measured). `gomoku ship` writes all three;
`manifest` reads and checks them without torch, so the brain can use them too."""
from pathlib import Path

#: the installed weights/ folder (the default target of `gomoku ship`)
FOLDER = Path(__file__).resolve().parent
