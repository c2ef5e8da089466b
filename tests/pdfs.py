"""A small PDF that is a sound file (a catalog, a page tree, a cross-reference table), for the
tests that attach a scan: an upload is read with pypdf before it is kept (kernel/uploads.py)."""

SCAN_PDF = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
    b"2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n"
    b"xref\n0 3\n0000000000 65535 f \n0000000009 00000 n \n0000000052 00000 n \n"
    b"trailer<</Size 3/Root 1 0 R>>\nstartxref\n96\n%%EOF\n"
)


def pdf_of_size(size):
    """A sound PDF of exactly `size` bytes: SCAN_PDF's objects and a stream that fills it out."""

    def build(fill):
        objects = [
            b"<</Type/Catalog/Pages 2 0 R>>",
            b"<</Type/Pages/Kids[]/Count 0>>",
            b"<</Length %d>>stream\n" % fill + b"0" * fill + b"\nendstream",
        ]
        out, offsets = bytearray(b"%PDF-1.4\n"), []
        for number, body in enumerate(objects, start=1):
            offsets.append(len(out))
            out += b"%d 0 obj" % number + body + b"endobj\n"
        xref = len(out)
        out += b"xref\n0 4\n0000000000 65535 f \n"
        out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
        out += b"trailer<</Size 4/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n" % xref
        return bytes(out)

    fill = size - len(build(0))
    pdf = build(fill)
    # The offsets grew by a digit or two with the stream's length: take them off the stream.
    return build(fill - (len(pdf) - size))
