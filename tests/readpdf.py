"""Read back the PDFs the app makes, in-process with pypdf.

A fresh machine has no poppler-utils (pdftotext, pdffonts, pdfinfo, pdfimages); these functions
read the same things without any system package. Like pdftotext, pypdf scrambles Devanagari (the
shaped glyphs come out of order), so assert English text only and check the Hindi by its fonts.
"""

import re
from io import BytesIO
from pathlib import Path

from pypdf import PdfReader
from pypdf.generic import ContentStream, NameObject


def _reader(pdf):
    """`pdf` is the document's bytes or the path of a file holding it."""
    if isinstance(pdf, bytes | bytearray):
        return PdfReader(BytesIO(pdf))
    return PdfReader(Path(pdf))


def _resolved(obj):
    """The dictionary behind an indirect reference; an empty one for a missing entry."""
    return {} if obj is None else obj.get_object()


def text(pdf, *, layout=False):
    """The text of every page. `layout=True` keeps the page's rows, as `pdftotext -layout` does,
    so that a label and the figure printed on its right read as one line."""
    mode = "layout" if layout else "plain"
    return "\n".join(page.extract_text(extraction_mode=mode) for page in _reader(pdf).pages)


def page_texts(pdf):
    """The text of each page, one string a page, white space collapsed."""
    return [" ".join(page.extract_text().split()) for page in _reader(pdf).pages]


def fonts(pdf):
    """{font name: embedded?} for every font a page uses, the subset prefix ("ABCDEF+") dropped."""
    found = {}
    for page in _reader(pdf).pages:
        _collect_fonts(page.get("/Resources"), found, seen=set())
    return found


def _collect_fonts(resources, found, seen):
    resources = _resolved(resources)
    for font in _resolved(resources.get("/Font")).values():
        font = font.get_object()
        # A composite (Type0) font, as WeasyPrint writes, keeps its descriptor on its descendant.
        inner = font["/DescendantFonts"][0].get_object() if "/DescendantFonts" in font else font
        descriptor = _resolved(inner.get("/FontDescriptor"))
        embedded = any(key in descriptor for key in ("/FontFile", "/FontFile2", "/FontFile3"))
        name = str(font.get("/BaseFont", "")).lstrip("/").split("+")[-1]
        found[name] = found.get(name, False) or embedded
    # Fonts used only inside form XObjects and patterns count too, as pdffonts counts them.
    for group in ("/XObject", "/Pattern"):
        for ref in _resolved(resources.get(group)).values():
            child = ref.get_object()
            if id(child) not in seen and "/Resources" in child:
                seen.add(id(child))
                _collect_fonts(child["/Resources"], found, seen)


def pages(pdf):
    """(number of pages, size of the first page as pdfinfo prints it: "595.276 x 841.89 pts")."""
    reader = _reader(pdf)
    box = reader.pages[0].mediabox
    return len(reader.pages), f"{float(box.width):g} x {float(box.height):g} pts"


def images(pdf):
    """How many images the pages draw, as `pdfimages -list` counts them: each drawing of an
    image, and its soft mask (transparency) as one more."""
    reader = _reader(pdf)
    return sum(
        _image_draws(page.get_contents(), page.get("/Resources"), reader) for page in reader.pages
    )


def _image_draws(content, resources, reader):
    if content is None:
        return 0
    xobjects = _resolved(_resolved(resources).get("/XObject"))
    count = 0
    for operands, operator in content.operations:
        if operator == b"INLINE IMAGE":
            count += 1
        elif operator == b"Do":
            xobject = xobjects[operands[0]].get_object()
            if xobject["/Subtype"] == "/Image":
                count += 2 if "/SMask" in xobject else 1
            elif xobject["/Subtype"] == "/Form":
                inner = ContentStream(xobject, reader)
                count += _image_draws(inner, xobject.get("/Resources", resources), reader)
    return count


# The faces of static/fonts, as a PDF names them: any other is a fallback to a system font.
VENDORED = {
    f"Noto-Sans{script}{weight}"
    for script in ("", "-Devanagari", "-Tamil")
    for weight in ("", "-Bold")
}


def missing_glyphs(pdf):
    """What a reader would see as a missing glyph: {font name: how many .notdef glyphs (glyph 0)
    its text draws}, and every font that is not one of the vendored Noto faces (a system font
    that WeasyPrint fell back to for a character none of ours has) under its own name."""
    found = {}
    for page in _reader(pdf).pages:
        _notdefs(page.get_contents(), page.get("/Resources"), found)
    return {name: count for name, count in found.items() if count or name not in VENDORED}


def _notdef_codes(font):
    """The codes a composite font maps to CID 0, the .notdef glyph. WeasyPrint writes its own
    encoding CMap (`<code> cid` lines) rather than Identity-H."""
    encoding = font.get("/Encoding")
    if encoding is None or isinstance(encoding.get_object(), NameObject):
        return {b"\0\0"}  # Identity-H: the code is the glyph id
    cmap = encoding.get_object().get_data().decode("latin-1")
    return {
        bytes.fromhex(code)
        for code, cid in re.findall(r"<([0-9a-fA-F]+)>\s+(\d+)", cmap)
        if cid == "0"
    }


def _notdefs(content, resources, found):
    resources = _resolved(resources)
    fonts = _resolved(resources.get("/Font"))
    if content is None:
        return
    name, notdef = None, set()
    for operands, operator in content.operations:
        if operator == b"Tf":
            font = fonts[operands[0]].get_object()
            name = str(font.get("/BaseFont", "")).lstrip("/").split("+")[-1]
            notdef = _notdef_codes(font) if "/DescendantFonts" in font else set()
            found.setdefault(name, 0)
        elif operator in (b"Tj", b"TJ") and name is not None:
            strings = operands[0] if operator == b"TJ" else [operands[0]]
            raw = b"".join(bytes(s.original_bytes) for s in strings if hasattr(s, "original_bytes"))
            codes = [raw[i : i + 2] for i in range(0, len(raw), 2)]
            found[name] += sum(1 for code in codes if code in notdef)
    for ref in _resolved(resources.get("/XObject")).values():
        child = ref.get_object()
        if child.get("/Subtype") == "/Form":
            _notdefs(ContentStream(child, child.pdf), child.get("/Resources"), found)
