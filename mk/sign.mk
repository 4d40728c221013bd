# Module signing with a key from outside the build (SIGN_KEY=PEM: private key
# + certificate; KBUILD_SIGN_PIN, its passphrase, if encrypted, in the
# environment only). Its knobs live in the kernel pipeline
# (tools/kbuild/{lib,config,build}.sh; docs/building/signing.md).

## test: check-sign  module signing: SIGN_KEY refusals, the guest's signed modules, enforcement in a VM
PHONY += check-sign
check-sign: | deps-kernel deps-vm deps-sign deps-packages
	@$(TOP)/tests/sign/run.sh
