"""The image pipeline: a phone photo of a Beer & Pretzels table in, the contract JSON out."""
