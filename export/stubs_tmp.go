package export

func (p *plan) nomad() ([]byte, error) { return nil, nil }
