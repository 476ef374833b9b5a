"""Prints the text of a PDF, page by page."""
import sys


def main(path):
    from pypdf import PdfReader

    for number, page in enumerate(PdfReader(path).pages, start=1):
        print(f"--- page {number} ---")
        print(page.extract_text())


if __name__ == "__main__":
    main(sys.argv[1])
