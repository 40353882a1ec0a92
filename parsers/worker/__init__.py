"""The parse workers: processes under hard limits, and the output objects they render and
send back."""
