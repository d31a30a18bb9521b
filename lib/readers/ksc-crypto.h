// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * OpenSSL's libcrypto, loaded when a signature or a certificate is first looked at.
 *
 * Why by hand: loading libcrypto with the program (relocating its ~20,000 entries and
 * running its constructors) costs about 1 ms at every start: 10% of a whole-tree re-check
 * that needs no signature, and much of a one-module check. Only ksc-sig.c calls
 * libcrypto; it includes this file after OpenSSL's headers, which turns each function
 * below into a call through the table ksc_crypto() fills on first use (dlopen() of the
 * libcrypto the library was built against). The linker keeps the list honest: a function
 * missing here is an undefined symbol, as libcrypto is not linked.
 */
#ifndef KSC_CRYPTO_H
#define KSC_CRYPTO_H

#define KSC_CRYPTO_FUNCTIONS(X) \
	X(ASN1_INTEGER_to_BN) \
	X(ASN1_STRING_get0_data) \
	X(ASN1_STRING_length) \
	X(ASN1_STRING_to_UTF8) \
	X(BIO_free) \
	X(BIO_new_mem_buf) \
	X(BN_bn2bin) \
	X(BN_free) \
	X(BN_num_bits) \
	X(CMS_ContentInfo_free) \
	X(CMS_SignerInfo_cert_cmp) \
	X(CMS_SignerInfo_get0_algs) \
	X(CMS_SignerInfo_get0_signature) \
	X(CMS_get0_SignerInfos) \
	X(CMS_get0_content) \
	X(CMS_get0_eContentType) \
	X(CMS_get0_type) \
	X(CMS_signed_get_attr_count) \
	X(CRYPTO_free) \
	X(ERR_clear_error) \
	X(EVP_Digest) \
	X(EVP_PKEY_CTX_free) \
	X(EVP_PKEY_CTX_new) \
	X(EVP_PKEY_CTX_set_rsa_padding) \
	X(EVP_PKEY_CTX_set_signature_md) \
	X(EVP_PKEY_get_base_id) \
	X(EVP_PKEY_get_bits) \
	X(EVP_PKEY_verify) \
	X(EVP_PKEY_verify_init) \
	X(EVP_get_digestbyname) \
	X(OBJ_nid2sn) \
	X(OBJ_obj2nid) \
	X(OPENSSL_sk_num) \
	X(OPENSSL_sk_value) \
	X(PEM_read_bio_X509) \
	X(PKCS7_SIGNER_INFO_get0_algs) \
	X(PKCS7_free) \
	X(PKCS7_get_signer_info) \
	X(X509_ALGOR_get0) \
	X(X509_NAME_ENTRY_get_data) \
	X(X509_NAME_ENTRY_get_object) \
	X(X509_NAME_entry_count) \
	X(X509_NAME_get_entry) \
	X(X509_NAME_get_index_by_NID) \
	X(X509_NAME_oneline) \
	X(X509_cmp) \
	X(X509_free) \
	X(X509_get0_pubkey) \
	X(X509_get0_serialNumber) \
	X(X509_get_issuer_name) \
	X(X509_get_subject_name) \
	X(d2i_CMS_ContentInfo) \
	X(d2i_PKCS7_bio) \
	X(d2i_X509) \
	X(i2d_X509)

struct ksc_crypto {
#define KSC_CRYPTO_MEMBER(f) __typeof__(f) *f;
	KSC_CRYPTO_FUNCTIONS(KSC_CRYPTO_MEMBER)
#undef KSC_CRYPTO_MEMBER
};

/*
 * 0 when libcrypto is loaded (the first call loads it), -ENOPKG when it cannot be; then
 * ksc_crypto_error() says why. Thread-safe.
 */
int ksc_crypto_load(void);
const char *ksc_crypto_error(void);
/* The table, libcrypto loaded. Every entry into ksc-sig.c checks ksc_crypto_load() first. */
const struct ksc_crypto *ksc_crypto(void);

#ifndef KSC_CRYPTO_LOADER
#define KSC_CRYPTO_FN(f) (ksc_crypto()->f)
#define ASN1_INTEGER_to_BN KSC_CRYPTO_FN(ASN1_INTEGER_to_BN)
#define ASN1_STRING_get0_data KSC_CRYPTO_FN(ASN1_STRING_get0_data)
#define ASN1_STRING_length KSC_CRYPTO_FN(ASN1_STRING_length)
#define ASN1_STRING_to_UTF8 KSC_CRYPTO_FN(ASN1_STRING_to_UTF8)
#define BIO_free KSC_CRYPTO_FN(BIO_free)
#define BIO_new_mem_buf KSC_CRYPTO_FN(BIO_new_mem_buf)
#define BN_bn2bin KSC_CRYPTO_FN(BN_bn2bin)
#define BN_free KSC_CRYPTO_FN(BN_free)
#define BN_num_bits KSC_CRYPTO_FN(BN_num_bits)
#define CMS_ContentInfo_free KSC_CRYPTO_FN(CMS_ContentInfo_free)
#define CMS_SignerInfo_cert_cmp KSC_CRYPTO_FN(CMS_SignerInfo_cert_cmp)
#define CMS_SignerInfo_get0_algs KSC_CRYPTO_FN(CMS_SignerInfo_get0_algs)
#define CMS_SignerInfo_get0_signature KSC_CRYPTO_FN(CMS_SignerInfo_get0_signature)
#define CMS_get0_SignerInfos KSC_CRYPTO_FN(CMS_get0_SignerInfos)
#define CMS_get0_content KSC_CRYPTO_FN(CMS_get0_content)
#define CMS_get0_eContentType KSC_CRYPTO_FN(CMS_get0_eContentType)
#define CMS_get0_type KSC_CRYPTO_FN(CMS_get0_type)
#define CMS_signed_get_attr_count KSC_CRYPTO_FN(CMS_signed_get_attr_count)
#define CRYPTO_free KSC_CRYPTO_FN(CRYPTO_free)
#define ERR_clear_error KSC_CRYPTO_FN(ERR_clear_error)
#define EVP_Digest KSC_CRYPTO_FN(EVP_Digest)
#define EVP_PKEY_CTX_free KSC_CRYPTO_FN(EVP_PKEY_CTX_free)
#define EVP_PKEY_CTX_new KSC_CRYPTO_FN(EVP_PKEY_CTX_new)
#define EVP_PKEY_CTX_set_rsa_padding KSC_CRYPTO_FN(EVP_PKEY_CTX_set_rsa_padding)
#define EVP_PKEY_CTX_set_signature_md KSC_CRYPTO_FN(EVP_PKEY_CTX_set_signature_md)
#define EVP_PKEY_get_base_id KSC_CRYPTO_FN(EVP_PKEY_get_base_id)
#define EVP_PKEY_get_bits KSC_CRYPTO_FN(EVP_PKEY_get_bits)
#define EVP_PKEY_verify KSC_CRYPTO_FN(EVP_PKEY_verify)
#define EVP_PKEY_verify_init KSC_CRYPTO_FN(EVP_PKEY_verify_init)
#define EVP_get_digestbyname KSC_CRYPTO_FN(EVP_get_digestbyname)
#define OBJ_nid2sn KSC_CRYPTO_FN(OBJ_nid2sn)
#define OBJ_obj2nid KSC_CRYPTO_FN(OBJ_obj2nid)
#define OPENSSL_sk_num KSC_CRYPTO_FN(OPENSSL_sk_num)
#define OPENSSL_sk_value KSC_CRYPTO_FN(OPENSSL_sk_value)
#define PEM_read_bio_X509 KSC_CRYPTO_FN(PEM_read_bio_X509)
#define PKCS7_SIGNER_INFO_get0_algs KSC_CRYPTO_FN(PKCS7_SIGNER_INFO_get0_algs)
#define PKCS7_free KSC_CRYPTO_FN(PKCS7_free)
#define PKCS7_get_signer_info KSC_CRYPTO_FN(PKCS7_get_signer_info)
#define X509_ALGOR_get0 KSC_CRYPTO_FN(X509_ALGOR_get0)
#define X509_NAME_ENTRY_get_data KSC_CRYPTO_FN(X509_NAME_ENTRY_get_data)
#define X509_NAME_ENTRY_get_object KSC_CRYPTO_FN(X509_NAME_ENTRY_get_object)
#define X509_NAME_entry_count KSC_CRYPTO_FN(X509_NAME_entry_count)
#define X509_NAME_get_entry KSC_CRYPTO_FN(X509_NAME_get_entry)
#define X509_NAME_get_index_by_NID KSC_CRYPTO_FN(X509_NAME_get_index_by_NID)
#define X509_NAME_oneline KSC_CRYPTO_FN(X509_NAME_oneline)
#define X509_cmp KSC_CRYPTO_FN(X509_cmp)
#define X509_free KSC_CRYPTO_FN(X509_free)
#define X509_get0_pubkey KSC_CRYPTO_FN(X509_get0_pubkey)
#define X509_get0_serialNumber KSC_CRYPTO_FN(X509_get0_serialNumber)
#define X509_get_issuer_name KSC_CRYPTO_FN(X509_get_issuer_name)
#define X509_get_subject_name KSC_CRYPTO_FN(X509_get_subject_name)
#define d2i_CMS_ContentInfo KSC_CRYPTO_FN(d2i_CMS_ContentInfo)
#define d2i_PKCS7_bio KSC_CRYPTO_FN(d2i_PKCS7_bio)
#define d2i_X509 KSC_CRYPTO_FN(d2i_X509)
#define i2d_X509 KSC_CRYPTO_FN(i2d_X509)
#endif

#endif
