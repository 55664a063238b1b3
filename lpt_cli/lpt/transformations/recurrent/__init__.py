"""Recurrent sequences (LSTMSequence, GRUSequence): dequantizations kept in front for the plugin to fold."""
